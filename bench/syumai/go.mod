module github.com/kontext/kontext/bench/syumai

go 1.26.0

require (
	github.com/go-git/go-billy/v5 v5.9.2
	github.com/kontext/kontext v0.0.0
	github.com/syumai/workers v0.31.0
)

require (
	github.com/bmatcuk/doublestar/v4 v4.10.4 // indirect
	github.com/pelletier/go-toml/v2 v2.4.3 // indirect
	github.com/yuin/goldmark v1.8.7 // indirect
	go.yaml.in/yaml/v3 v3.0.6 // indirect
)

replace github.com/kontext/kontext => ../..
