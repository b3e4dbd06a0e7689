package models

import (
	"bytes"
	"embed"
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"
)

//go:embed lib
var lib embed.FS

// Param is a parameter of a model family.
type Param struct {
	Name    string `json:"name"`
	Doc     string `json:"doc"`
	Default int    `json:"default"`
	Min     int    `json:"min"`
	Max     int    `json:"max"`
}

// Info describes a catalogue entry.
type Info struct {
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Paper       string   `json:"paper,omitempty"` // the paper's row (Table 3 class), if any
	File        string   `json:"file"`            // path within FS()
	Params      []Param  `json:"params,omitempty"`
	Tags        []string `json:"tags,omitempty"` // "paper", "classic", "demo", "spec"

	fixed  map[string]int                        // hidden template parameters (the variant)
	derive func(p map[string]int) error          // checks combinations of parameters
	extra  func(p map[string]int) map[string]any // derived template values
}

// Template reports whether the entry is a parameterised family.
func (i Info) Template() bool { return strings.HasSuffix(i.File, ".tmpl") }

// Defaults returns the default parameter values.
func (i Info) Defaults() map[string]int {
	m := make(map[string]int, len(i.Params))
	for _, p := range i.Params {
		m[p.Name] = p.Default
	}
	return m
}

// List returns the catalogue in a fixed order (demo first, then the paper's
// classes in Table 3's order, then the specifications and classic examples).
func List() []Info {
	out := make([]Info, len(catalogue))
	copy(out, catalogue)
	return out
}

// Lookup finds an entry by name.
func Lookup(name string) (Info, bool) {
	for _, i := range catalogue {
		if i.Name == name {
			return i, true
		}
	}
	return Info{}, false
}

// FS is the embedded library: lib/*.csp and lib/*.csp.tmpl. Generated
// models include nothing; fixed models may include files of lib/.
func FS() fs.FS { return lib }

// Demo is the model `quasar check` checks when given no file.
func Demo() (filename string, src []byte) {
	f, s, err := Generate("demo", nil)
	if err != nil {
		panic("models: the demo model is missing: " + err.Error())
	}
	return f, s
}

// ParseParams turns command-line arguments "seg=3" "qf=2" into a parameter
// map. It does not validate names or ranges (Generate does).
func ParseParams(args []string) (map[string]int, error) {
	m := make(map[string]int, len(args))
	for _, a := range args {
		k, v, ok := strings.Cut(a, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("parameter %q: expected name=value", a)
		}
		n, err := strconv.Atoi(v)
		if err != nil {
			return nil, fmt.Errorf("parameter %q: value %q is not an integer", a, v)
		}
		if _, dup := m[k]; dup {
			return nil, fmt.Errorf("parameter %q given twice", k)
		}
		m[k] = n
	}
	return m, nil
}

// Generate returns the source of a model: a fixed model as stored, or a family
// instantiated with params (missing ones take their defaults). The filename
// names the instance, e.g. "segqueue-qf2-seg3.csp" (the parameters that differ
// from the defaults, in catalogue order).
func Generate(name string, params map[string]int) (filename string, src []byte, err error) {
	info, ok := Lookup(name)
	if !ok {
		return "", nil, fmt.Errorf("unknown model %q (known: %s)", name, strings.Join(names(), ", "))
	}
	if !info.Template() {
		if len(params) > 0 {
			return "", nil, fmt.Errorf("model %s has no parameters", name)
		}
		src, err := fs.ReadFile(lib, info.File)
		if err != nil {
			return "", nil, err
		}
		return strings.TrimPrefix(info.File, "lib/"), src, nil
	}
	vals, err := info.resolve(params)
	if err != nil {
		return "", nil, err
	}
	data := map[string]any{}
	var args []string
	fname := info.Name
	for _, p := range info.Params {
		data[p.Name] = vals[p.Name]
		args = append(args, fmt.Sprintf("%s=%d", p.Name, vals[p.Name]))
		if vals[p.Name] != p.Default {
			fname += fmt.Sprintf("-%s%d", p.Name, vals[p.Name])
		}
	}
	for k, v := range info.fixed {
		data[k] = v
	}
	if info.extra != nil {
		for k, v := range info.extra(vals) {
			data[k] = v
		}
	}
	data["name"] = info.Name
	data["title"] = info.Description
	data["args"] = strings.Join(args, " ")
	var buf bytes.Buffer
	if err := templates().ExecuteTemplate(&buf, strings.TrimPrefix(info.File, "lib/"), data); err != nil {
		return "", nil, fmt.Errorf("model %s: %v", name, err) // a bug in the library, reported as an error
	}
	return fname + ".csp", buf.Bytes(), nil
}

// resolve fills defaults and validates names and ranges.
func (i Info) resolve(params map[string]int) (map[string]int, error) {
	vals := i.Defaults()
	keys := make([]string, 0, len(params))
	for k := range params {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		p, ok := i.param(k)
		if !ok {
			var known []string
			for _, p := range i.Params {
				known = append(known, p.Name)
			}
			if len(known) == 0 {
				return nil, fmt.Errorf("model %s has no parameters", i.Name)
			}
			return nil, fmt.Errorf("model %s has no parameter %q (parameters: %s)", i.Name, k, strings.Join(known, ", "))
		}
		v := params[k]
		if v < p.Min || v > p.Max {
			return nil, fmt.Errorf("model %s: %s=%d is out of range %d..%d (%s)", i.Name, k, v, p.Min, p.Max, p.Doc)
		}
		vals[k] = v
	}
	if i.derive != nil {
		if err := i.derive(vals); err != nil {
			return nil, fmt.Errorf("model %s: %v", i.Name, err)
		}
	}
	return vals, nil
}

func (i Info) param(name string) (Param, bool) {
	for _, p := range i.Params {
		if p.Name == name {
			return p, true
		}
	}
	return Param{}, false
}

func names() []string {
	var n []string
	for _, i := range catalogue {
		n = append(n, i.Name)
	}
	return n
}
