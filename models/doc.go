// Package models is Quasar's model library: CSP# models (PAT's language) that
// a user can read, check and modify, embedded in the binary.
//
// Two kinds of entries make up the catalogue (List, Lookup):
//
//   - fixed models, stored as lib/NAME.csp (the demo, the classic CSP#
//     examples);
//   - parameterised families, stored as text/template files
//     lib/NAME.csp.tmpl and instantiated by Generate with integer parameters
//     (quasi factor, number of segments, capacity, threads, value domain).
//     Every parameter has a default and an inclusive range; an unknown name or
//     an out-of-range value is an error that names the valid choices.
//
// The concurrent data structures (the benchmark classes of Table 3 of the
// quasi-refinement paper) are modelled with real low-level steps: a read of a
// shared pointer into a thread register, and compare-and-swap as a guarded
// event block whose guard re-validates what was read; T threads call
// operations forever. Each is written in two styles (see docs/models.md):
// operation events emitted where the operation takes effect (enq.v, deq.v,
// deq.0), checked with refines and refines<quasi ...>; and invocation and
// response events checked with plain refines against an atomic specification
// (linearizability).
//
// Every #assert of every model carries its expected verdict in a comment,
// `// expect: valid` or `// expect: invalid`, on the assertion's line or on the
// line just above it; Expectations reads them. The expectations come from the
// paper's Table 3 or from reasoning about the model's design, written next to
// them; never from a tool's output. The package contains no checking logic:
// the tests run the models through the pipeline package.
package models
