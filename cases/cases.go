// Package cases embeds conform's case corpus, so that `conform check`
// works from the binary alone. Each case is a JSON file with its inputs and
// expected output as .npy files beside it; see docs/case-format.md for the format.
package cases

import "embed"

// FS holds the corpus. Paths are relative to this directory, e.g.
// "seeds/tf_strided_slice_doc_1.json".
//
//go:embed seeds golden
var FS embed.FS
