package main

import (
	"encoding/json"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/mod/module"
	modzip "golang.org/x/mod/zip"
)

// publish writes the module in the directory modDir, as module mv, into the file-system module
// proxy at proxyDir, as the GOPROXY protocol lays it out:
// <escaped path>/@v/{list, v.info, v.mod, v.zip}. The zip holds the files the next commit would
// (tracked or new, not ignored), less nested modules, as the go command makes it; go.mod goes in
// unchanged, replace included, since consumers ignore a dependency's replace.
func publish(proxyDir, modDir string, mv module.Version, when time.Time) error {
	escPath, err := module.EscapePath(mv.Path)
	if err != nil {
		return err
	}
	escVer, err := module.EscapeVersion(mv.Version)
	if err != nil {
		return err
	}
	vdir := filepath.Join(proxyDir, filepath.FromSlash(escPath), "@v")
	if err := os.MkdirAll(vdir, 0o755); err != nil {
		return err
	}
	names, err := gitFiles(modDir)
	if err != nil {
		return err
	}
	var files []modzip.File
	for _, n := range names {
		files = append(files, treeFile{root: modDir, name: n})
	}
	zf, err := os.Create(filepath.Join(vdir, escVer+".zip"))
	if err != nil {
		return err
	}
	if err := modzip.Create(zf, mv, files); err != nil {
		zf.Close()
		return err
	}
	if err := zf.Close(); err != nil {
		return err
	}
	gomod, err := os.ReadFile(filepath.Join(modDir, "go.mod"))
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(vdir, escVer+".mod"), gomod, 0o644); err != nil {
		return err
	}
	info, err := json.Marshal(struct {
		Version string
		Time    time.Time
	}{mv.Version, when.UTC()})
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(vdir, escVer+".info"), info, 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(vdir, "list"), []byte(mv.Version+"\n"), 0o644)
}

// treeFile is a file of the work tree as golang.org/x/mod/zip reads it.
type treeFile struct {
	root string // the module's directory
	name string // slash-separated, relative to root
}

func (f treeFile) Path() string { return f.name }

func (f treeFile) Lstat() (fs.FileInfo, error) {
	return os.Lstat(filepath.Join(f.root, filepath.FromSlash(f.name)))
}

func (f treeFile) Open() (io.ReadCloser, error) {
	return os.Open(filepath.Join(f.root, filepath.FromSlash(f.name)))
}
