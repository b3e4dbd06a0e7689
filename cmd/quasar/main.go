// Command quasar checks concurrent data structures against sequential
// specifications: linearizability and quasi-linearizability of bounded
// models written in a CSP#-like language, and of recorded histories.
//
// Usage:
//
//	quasar check [FILE] [flags]      check the assertions of a model (default: the demo model)
//	quasar vet FILE...               parse and check models without exploring them
//	quasar fmt [-w] FILE...          print models in canonical form
//	quasar quasi-factor FILE         the least quasi factor of a refinement
//	quasar lts FILE --process P      the reachable graph of a process (DOT, .aut)
//	quasar models list|show|get      the model library
//	quasar history check|factor FILE check recorded histories
//	quasar paper                     reproduce the quasi-refinement paper's tables
//	quasar version                   print the version
//
// Exit codes: 0 every assertion holds; 1 some assertion is violated; 2 bad
// usage or bad input (model errors included); 3 a limit was hit or the run
// was interrupted, so some verdict is unknown; 4 internal error (a bug in
// Quasar). docs/cli.md documents every command and the JSON schema.
//
// The commands are built by constructor functions (newCheckCmd, ...) from
// the streams given to New; nothing is registered globally, so the tests run
// the real command in-process (testdata/script/*.txtar).
package main

import "os"

func main() { os.Exit(Main()) }
