package history

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

func loadHistory(tb testing.TB, file string) *History {
	f, err := os.Open(filepath.Join(dataDir, file))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	h, err := Parse(file, f)
	if err != nil {
		tb.Fatal(err)
	}
	return h
}

func benchFile(b *testing.B, file string, m Model) {
	h := loadHistory(b, file)
	b.ReportAllocs()
	var states int64
	for b.Loop() {
		res, err := Check(context.Background(), h, m, Options{})
		if err != nil {
			b.Fatal(err)
		}
		states = res.Stats.States
	}
	b.ReportMetric(float64(states), "states")
}

func BenchmarkEtcd002(b *testing.B) { benchFile(b, "jepsen/etcd_002.log", CASRegister()) }
func BenchmarkEtcd007(b *testing.B) { benchFile(b, "jepsen/etcd_007.log", CASRegister()) }
func BenchmarkC50Ok(b *testing.B)   { benchFile(b, "kv/c50-ok.txt", KV()) }

func BenchmarkC01Ok(b *testing.B)  { benchFile(b, "kv/c01-ok.txt", KV()) }
func BenchmarkC10Ok(b *testing.B)  { benchFile(b, "kv/c10-ok.txt", KV()) }
func BenchmarkC50Bad(b *testing.B) { benchFile(b, "kv/c50-bad.txt", KV()) }
func BenchmarkC10Bad(b *testing.B) { benchFile(b, "kv/c10-bad.txt", KV()) }
func BenchmarkC01Bad(b *testing.B) { benchFile(b, "kv/c01-bad.txt", KV()) }
