package account

import (
	"bytes"
	"io"
	"io/fs"
	"maps"
	"slices"
	"time"
)

// memFS is a flat read-only file system in memory: the console's and the
// pages' templates and messages merged (Extend). Only its root holds files.
type memFS map[string][]byte

// Open opens a file of the root, or the root itself (for fs.Glob).
func (m memFS) Open(name string) (fs.File, error) {
	if name == "." {
		return &memDir{m: m}, nil
	}
	b, ok := m[name]
	if !ok {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return &memFile{info: memInfo{name: name, size: int64(len(b))}, r: bytes.NewReader(b)}, nil
}

// ReadFile returns a copy of a file's bytes.
func (m memFS) ReadFile(name string) ([]byte, error) {
	b, ok := m[name]
	if !ok {
		return nil, &fs.PathError{Op: "read", Path: name, Err: fs.ErrNotExist}
	}
	return bytes.Clone(b), nil
}

// ReadDir lists the root, sorted by name.
func (m memFS) ReadDir(name string) ([]fs.DirEntry, error) {
	if name != "." {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrNotExist}
	}
	out := []fs.DirEntry{}
	for _, n := range slices.Sorted(maps.Keys(m)) {
		out = append(out, fs.FileInfoToDirEntry(memInfo{name: n, size: int64(len(m[n]))}))
	}
	return out, nil
}

type memFile struct {
	info memInfo
	r    *bytes.Reader
}

func (f *memFile) Stat() (fs.FileInfo, error) { return f.info, nil }
func (f *memFile) Read(p []byte) (int, error) { return f.r.Read(p) }
func (f *memFile) Close() error               { return nil }

// memDir is the root opened.
type memDir struct {
	m    memFS
	read bool
}

func (d *memDir) Stat() (fs.FileInfo, error) { return memInfo{name: ".", dir: true}, nil }
func (d *memDir) Read([]byte) (int, error)   { return 0, io.EOF }
func (d *memDir) Close() error               { return nil }

func (d *memDir) ReadDir(n int) ([]fs.DirEntry, error) {
	if d.read {
		if n > 0 {
			return nil, io.EOF
		}
		return nil, nil
	}
	d.read = true
	return d.m.ReadDir(".")
}

type memInfo struct {
	name string
	size int64
	dir  bool
}

func (i memInfo) Name() string { return i.name }
func (i memInfo) Size() int64  { return i.size }
func (i memInfo) Mode() fs.FileMode {
	if i.dir {
		return fs.ModeDir | 0o555
	}
	return 0o444
}
func (i memInfo) ModTime() time.Time { return time.Time{} }
func (i memInfo) IsDir() bool        { return i.dir }
func (i memInfo) Sys() any           { return nil }
