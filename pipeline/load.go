package pipeline

import (
	"github.com/quasar-verify/quasar/csp"
	"github.com/quasar-verify/quasar/lang"
	"github.com/quasar-verify/quasar/lts"
)

// Vet parses a model and checks it statically (names, arities, types,
// constants) without compiling or exploring it.
func Vet(name string, src []byte) (*lang.Checked, error) {
	m, err := lang.Parse(name, src)
	if err != nil {
		return nil, err
	}
	return lang.Check(m)
}

// Process loads a model given as text and returns the system of one of its
// processes, called with integer arguments: what "quasar lts" draws.
func Process(name string, src []byte, process string, args []int64) (lts.System, error) {
	m, err := lang.Parse(name, src)
	if err != nil {
		return nil, err
	}
	_, prog, err := load(m)
	if err != nil {
		return nil, err
	}
	return prog.ProcessByName(process, args...)
}

// Compile loads a model given as text into the CSP# engine's program: for
// callers that build systems from it themselves (history checks against a
// model's process).
func Compile(name string, src []byte) (*lang.Checked, *csp.Program, error) {
	m, err := lang.Parse(name, src)
	if err != nil {
		return nil, nil, err
	}
	return load(m)
}
