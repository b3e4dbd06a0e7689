package deps

import (
	_ "github.com/alecthomas/participle/v2"
	_ "github.com/dgraph-io/ristretto/v2"
	_ "github.com/rogpeppe/go-internal/testscript"
	_ "github.com/schollz/progressbar/v3"
	_ "github.com/spf13/cobra"
	_ "golang.org/x/sync/errgroup"
	_ "golang.org/x/term"
	_ "golang.org/x/tools/txtar"
	_ "gonum.org/v1/plot"
)
