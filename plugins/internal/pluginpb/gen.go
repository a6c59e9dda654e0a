// Package pluginpb is the generated code of the harnish plugin protocol
// (../proto/plugin.proto). It is committed; CI does not regenerate it.
//
// Regenerate with protoc 3.21, protoc-gen-go v1.36.12 and
// protoc-gen-go-grpc v1.6.2 on PATH:
//
//	go generate ./plugins/internal/pluginpb
package pluginpb

//go:generate protoc -I ../proto --go_out=. --go_opt=paths=source_relative --go-grpc_out=. --go-grpc_opt=paths=source_relative plugin.proto
