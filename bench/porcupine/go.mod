module quasar-bench-porcupine

go 1.26.8

require (
	github.com/anishathalye/porcupine v1.3.1
	github.com/quasar-verify/quasar v0.0.0
)

require github.com/alecthomas/participle/v2 v2.1.4 // indirect

replace github.com/quasar-verify/quasar => ../..
