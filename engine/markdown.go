package engine

import "github.com/kontext/kontext/engine/internal/markdown"

// RenderedMarkdown is an entry body rendered for display: HTML without raw
// HTML from the source and without dangerous link targets.
type RenderedMarkdown = markdown.Result

// RenderMarkdown renders Markdown (an entry's body) to safe HTML: CommonMark
// with tables and strikethrough, raw HTML dropped, javascript:/data:-style
// link targets dropped, [[id]] as <a class="wikilink" data-entry-id="id">.
// Hostile input is bounded: oversized texts and paragraphs are shown as
// preformatted text. It is pure and never fails.
func RenderMarkdown(src string) RenderedMarkdown { return markdown.Render(src) }
