package sched

import "github.com/quasar-verify/quasar/history"

// nopModel accepts every history.
type nopModel struct{}

func (nopModel) Name() string                                  { return "any" }
func (nopModel) Compile([]history.Op) (history.Machine, error) { return nopMachine{}, nil }

type nopMachine struct{}

func (nopMachine) Init(buf []history.State) []history.State { return append(buf, 0) }
func (nopMachine) Step(_ history.State, _ int, buf []history.State) []history.State {
	return append(buf, 0)
}
func (nopMachine) Describe(history.State) string { return "any" }
