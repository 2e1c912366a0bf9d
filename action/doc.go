// Package action holds the tests of kontext's GitHub Action (action.yml at
// the repository root and its install step, install.sh): the workflow of
// the pull-request guide (docs/pull-requests.md) linted with actionlint
// against the action, and every input the action uses declared. The install step's offline test is in
// build/release, next to the release builder it installs from.
package action
