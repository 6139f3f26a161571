package expr

import "github.com/conformsuite/conform/engine"

// ParseGpython is Parse without the plain path: every source goes through
// gpython's parser.
func ParseGpython(src string) ([]engine.IndexItem, error) { return parse(src, false) }
