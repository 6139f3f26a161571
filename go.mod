module github.com/conformsuite/conform

go 1.23

require (
	github.com/campoy/embedmd v1.0.0 // indirect
	github.com/go-python/gpython v0.2.0 // indirect
	github.com/google/go-cmp v0.7.0 // indirect
	github.com/mattn/go-runewidth v0.0.13 // indirect
	github.com/peterh/liner v1.2.2 // indirect
	github.com/pmezard/go-difflib v1.0.0 // indirect
	github.com/rivo/uniseg v0.3.4 // indirect
	github.com/sbinet/npyio v0.6.0 // indirect
	golang.org/x/sys v0.0.0-20220817070843-5a390386f1f2 // indirect
	gonum.org/v1/gonum v0.9.3 // indirect
	pgregory.net/rapid v1.3.0 // indirect
)
