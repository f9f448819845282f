package binio

import (
	"bytes"
	"errors"
	"io"
	"slices"
	"testing"
	"unsafe"
)

// TestRoundTrip: every value reads back as written, and the reader ends
// exactly at the end.
func TestRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	big := make([]uint32, 5000) // more than one block
	for i := range big {
		big[i] = uint32(i * 7919)
	}
	w.Byte(7)
	w.Uvarint(1 << 40)
	w.Varint(-12345)
	w.U32(0xdeadbeef)
	w.U64(1<<63 + 5)
	w.String("héllo")
	w.Bytes([]byte{1, 2, 3})
	w.Bytes(nil)
	w.U32s(big)
	w.U64s([]uint64{1, 1 << 50})
	if err := w.Flush(); err != nil || w.Written() != int64(buf.Len()) {
		t.Fatalf("flush: %v, %d written, %d in the buffer", err, w.Written(), buf.Len())
	}
	data := buf.Bytes()
	for _, r := range []*Reader{NewReader(bytes.NewReader(data), int64(len(data))), NewBytesReader(data, "owner")} {
		if r.Byte() != 7 || r.Uvarint() != 1<<40 || r.Varint() != -12345 || r.U32() != 0xdeadbeef || r.U64() != 1<<63+5 ||
			r.StringRef() != "héllo" || !bytes.Equal(r.Bytes(), []byte{1, 2, 3}) || r.Bytes() != nil ||
			!slices.Equal(r.U32s(), big) || !slices.Equal(r.U64s(), []uint64{1, 1 << 50}) {
			t.Fatal("a value read back differently")
		}
		if r.Err() != nil || r.Remaining() != 0 {
			t.Fatalf("end: %v, %d left", r.Err(), r.Remaining())
		}
		r.Byte()
		if !errors.Is(r.Err(), ErrCorrupt) {
			t.Errorf("reading past the end: %v", r.Err())
		}
	}
}

// TestBytesReaderStrings: from a byte slice, StringRef shares the slice's
// memory and String copies it; Owner is what was given.
func TestBytesReaderStrings(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	w.String("shared")
	w.String("copied")
	w.Flush()
	data := buf.Bytes()
	r := NewBytesReader(data, &buf)
	ref, cp := r.StringRef(), r.String()
	if ref != "shared" || cp != "copied" || r.Err() != nil || r.Owner() != any(&buf) {
		t.Fatalf("%q %q %v %v", ref, cp, r.Err(), r.Owner())
	}
	data[1] = 'S'
	data[8] = 'C'
	if ref != "Shared" || cp != "copied" {
		t.Errorf("after changing the bytes: %q (shared) and %q (copied)", ref, cp)
	}
	if NewReader(bytes.NewReader(data), int64(len(data))).Owner() != nil {
		t.Error("an io.Reader's Reader has an owner")
	}
}

// TestBytesRef: from a byte slice BytesRef shares its memory, from an
// io.Reader it copies, and none is nil either way.
func TestBytesRef(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	w.Bytes([]byte("body"))
	w.Bytes(nil)
	w.Flush()
	data := buf.Bytes()
	for _, shared := range []bool{true, false} {
		r := NewBytesReader(data, nil)
		if !shared {
			r = NewReader(bytes.NewReader(data), int64(len(data)))
		}
		b, none := r.BytesRef(), r.BytesRef()
		if string(b) != "body" || none != nil || r.Err() != nil {
			t.Fatalf("shared %v: %q %v %v", shared, b, none, r.Err())
		}
		if got := &b[0] == &data[1]; got != shared {
			t.Errorf("shared %v: the bytes are the reader's: %v", shared, got)
		}
	}
}

// TestRefusals: a length that cannot fit in the bytes left is refused
// before anything is allocated for it, and errors stick.
func TestRefusals(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	w.Uvarint(1 << 60) // a count no file holds
	w.Flush()
	for name, read := range map[string]func(*Reader){
		"string": func(r *Reader) { _ = r.String() },
		"bytes":  func(r *Reader) { r.Bytes() },
		"u32s":   func(r *Reader) { r.U32s() },
		"u64s":   func(r *Reader) { r.U64s() },
	} {
		for _, r := range []*Reader{NewReader(bytes.NewReader(buf.Bytes()), 1<<20), NewBytesReader(buf.Bytes(), nil)} {
			read(r)
			if !errors.Is(r.Err(), ErrCorrupt) {
				t.Errorf("%s of 2^60: %v", name, r.Err())
			}
			if r.U32() != 0 || r.String() != "" || r.StringRef() != "" {
				t.Errorf("%s: a read after an error gave a value", name)
			}
		}
	}
	r := NewReader(bytes.NewReader([]byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80}), 11)
	if r.Uvarint(); !errors.Is(r.Err(), ErrCorrupt) {
		t.Errorf("an endless uvarint: %v", r.Err())
	}
	// Declared size larger than the data: truncated.
	r = NewReader(bytes.NewReader([]byte{3, 'a'}), 10)
	if _ = r.String(); !errors.Is(r.Err(), ErrCorrupt) {
		t.Errorf("a truncated string: %v", r.Err())
	}
	r = NewBytesReader([]byte{3, 'a'}, nil)
	if _ = r.StringRef(); !errors.Is(r.Err(), ErrCorrupt) {
		t.Errorf("a truncated string in place: %v", r.Err())
	}
}

// TestArraysInPlace: arrays start at multiples of 8 bytes of the stream, so
// that from aligned bytes U32sRef and U64sRef share the reader's memory;
// from a reader of unaligned bytes or of an io.Reader they are copies of
// the same values; a non-zero padding byte is refused.
func TestArraysInPlace(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	w.Byte(1) // an odd offset before each array
	w.U32s([]uint32{1, 2, 3})
	w.String("abc")
	w.U64s([]uint64{1 << 40, 7})
	w.U32s(nil)
	w.Flush()
	// The buffer's memory at offsets 0 (8-aligned: a fresh allocation) and 1.
	for _, shift := range []int{0, 1} {
		mem := make([]uint64, buf.Len()/8+2)
		data := unsafe.Slice((*byte)(unsafe.Pointer(&mem[0])), 8*len(mem))[shift : shift+buf.Len()]
		copy(data, buf.Bytes())
		inside := func(p unsafe.Pointer) bool {
			a := uintptr(p)
			return a >= uintptr(unsafe.Pointer(&data[0])) && a < uintptr(unsafe.Pointer(&data[0]))+uintptr(len(data))
		}
		r := NewBytesReader(data, nil)
		if r.Byte() != 1 {
			t.Fatal("first byte")
		}
		u32 := r.U32sRef()
		s := r.StringRef()
		u64 := r.U64sRef()
		empty := r.U32sRef()
		if !slices.Equal(u32, []uint32{1, 2, 3}) || s != "abc" || !slices.Equal(u64, []uint64{1 << 40, 7}) || len(empty) != 0 ||
			r.Err() != nil || r.Remaining() != 0 {
			t.Fatalf("shift %d: read %v %q %v %v, err %v, %d left", shift, u32, s, u64, empty, r.Err(), r.Remaining())
		}
		if shared := inside(unsafe.Pointer(&u32[0])) && inside(unsafe.Pointer(&u64[0])); shared != (shift == 0 && littleEndian) {
			t.Errorf("shift %d: arrays in the reader's memory: %v", shift, shared)
		}
	}
	r := NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if r.Byte(); !slices.Equal(r.U32sRef(), []uint32{1, 2, 3}) || r.StringRef() != "abc" || !slices.Equal(r.U64sRef(), []uint64{1 << 40, 7}) {
		t.Error("an io.Reader's arrays read back differently")
	}

	bad := slices.Clone(buf.Bytes())
	bad[2] = 9 // the padding after the first array's length
	if r := NewBytesReader(bad, nil); r.Byte() == 1 && r.U32sRef() != nil || !errors.Is(r.Err(), ErrCorrupt) {
		t.Errorf("non-zero padding: %v", r.Err())
	}
}

// TestArraysAligned: U32sAligned puts the array at the next multiple of its
// alignment, whatever comes before, and U32sRefAligned reads it in place
// from bytes so aligned, or as a copy from an io.Reader; an alignment that
// is not the format's panics.
func TestArraysAligned(t *testing.T) {
	for _, lead := range []int{0, 1, 7, 8, 33, 63, 64} {
		var buf bytes.Buffer
		w := NewWriter(&buf)
		w.Raw(make([]byte, lead))
		w.U32sAligned([]uint32{1, 2, 3, 4, 5, 6, 7, 8}, 32)
		w.U32s([]uint32{9})
		w.Flush()
		mem := make([]uint64, buf.Len()/8+8)
		base := unsafe.Slice((*byte)(unsafe.Pointer(&mem[0])), 8*len(mem))
		skip := int(-uintptr(unsafe.Pointer(&base[0])) & 63) // a 64-byte boundary in mem
		data := base[skip : skip+buf.Len()]
		copy(data, buf.Bytes())
		r := NewBytesReader(data, nil)
		r.Raw(make([]byte, lead))
		rows := r.U32sRefAligned(32)
		next := r.U32sRef()
		if r.Err() != nil || !slices.Equal(rows, []uint32{1, 2, 3, 4, 5, 6, 7, 8}) || !slices.Equal(next, []uint32{9}) {
			t.Fatalf("lead %d: read %v %v, err %v", lead, rows, next, r.Err())
		}
		if littleEndian && uintptr(unsafe.Pointer(&rows[0]))%32 != 0 {
			t.Errorf("lead %d: rows at %#x, not a multiple of 32", lead, uintptr(unsafe.Pointer(&rows[0])))
		}
		if at := bytes.Index(buf.Bytes(), []byte{1, 0, 0, 0, 2}); at%32 != 0 {
			t.Errorf("lead %d: rows at byte %d of the stream", lead, at)
		}
		cr := NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
		cr.Raw(make([]byte, lead))
		if rows := cr.U32sRefAligned(32); !slices.Equal(rows, []uint32{1, 2, 3, 4, 5, 6, 7, 8}) || !slices.Equal(cr.U32s(), []uint32{9}) {
			t.Errorf("lead %d: an io.Reader's rows read back as %v, err %v", lead, rows, cr.Err())
		}
	}
	for _, bad := range []int{0, 4, 12, 128} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("alignment %d did not panic", bad)
				}
			}()
			NewWriter(io.Discard).U32sAligned(nil, bad)
		}()
	}
}
