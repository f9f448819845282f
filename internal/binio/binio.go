// Package binio writes and reads the little-endian, length-prefixed values
// of cardcat's binary files (the serving snapshot's artifact: catalog,
// analytics and serving each encode their own part with it).
//
// Both sides keep the first error and turn every later call into a no-op,
// so that an encoder or decoder is a straight list of calls followed by one
// Err check. A Reader is given the number of bytes it may read and refuses
// any length that does not fit in them, so that a corrupt or hostile file
// fails cleanly instead of making the reader allocate what a length claims.
package binio

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"
	"unsafe"
)

// ErrCorrupt is wrapped by every Reader error about the bytes themselves (as
// opposed to the underlying reader's errors).
var ErrCorrupt = errors.New("binio: corrupt data")

// Writer appends values to a buffered io.Writer.
type Writer struct {
	w   *bufio.Writer
	n   int64
	err error
	buf [8]byte
}

// NewWriter returns a Writer on w; call Flush at the end.
func NewWriter(w io.Writer) *Writer { return &Writer{w: bufio.NewWriterSize(w, 1<<16)} }

// Err returns the first error.
func (w *Writer) Err() error { return w.err }

// Written is the number of bytes written so far.
func (w *Writer) Written() int64 { return w.n }

// Flush writes the buffered bytes and returns the first error.
func (w *Writer) Flush() error {
	if w.err == nil {
		w.err = w.w.Flush()
	}
	return w.err
}

// Raw writes b as it is.
func (w *Writer) Raw(b []byte) {
	if w.err != nil {
		return
	}
	n, err := w.w.Write(b)
	w.n += int64(n)
	w.err = err
}

func (w *Writer) rawString(s string) {
	if w.err != nil {
		return
	}
	n, err := w.w.WriteString(s)
	w.n += int64(n)
	w.err = err
}

// Byte writes one byte.
func (w *Writer) Byte(c byte) {
	if w.err != nil {
		return
	}
	w.err = w.w.WriteByte(c)
	w.n++
}

// Uvarint writes v as a uvarint.
func (w *Writer) Uvarint(v uint64) {
	var b [binary.MaxVarintLen64]byte
	w.Raw(b[:binary.PutUvarint(b[:], v)])
}

// Varint writes v as a zigzag varint.
func (w *Writer) Varint(v int64) {
	var b [binary.MaxVarintLen64]byte
	w.Raw(b[:binary.PutVarint(b[:], v)])
}

// U32 writes v in 4 bytes.
func (w *Writer) U32(v uint32) {
	binary.LittleEndian.PutUint32(w.buf[:4], v)
	w.Raw(w.buf[:4])
}

// U64 writes v in 8 bytes.
func (w *Writer) U64(v uint64) {
	binary.LittleEndian.PutUint64(w.buf[:], v)
	w.Raw(w.buf[:])
}

// String writes s as its length and its bytes.
func (w *Writer) String(s string) {
	w.Uvarint(uint64(len(s)))
	w.rawString(s)
}

// Bytes writes b as its length and its bytes.
func (w *Writer) Bytes(b []byte) {
	w.Uvarint(uint64(len(b)))
	w.Raw(b)
}

// U32s writes v as its length and 4 bytes per element, from the next
// multiple of 8 bytes of the stream (zeros between): a Reader of mapped
// bytes can then use the array in place (U32sRef).
func (w *Writer) U32s(v []uint32) { w.U32sAligned(v, 8) }

// U32sAligned is U32s with the elements from the next multiple of align
// bytes (a power of two, 8 to MaxAlign): an array of rows of align bytes
// read in place from a stream whose start is so aligned in memory has no
// row across two cache lines. U32sRefAligned(align) reads it.
func (w *Writer) U32sAligned(v []uint32, align int) {
	w.Uvarint(uint64(len(v)))
	w.alignTo(align)
	var block [4096]byte
	for len(v) > 0 && w.err == nil {
		n := min(len(v), len(block)/4)
		for i, x := range v[:n] {
			binary.LittleEndian.PutUint32(block[4*i:], x)
		}
		w.Raw(block[:4*n])
		v = v[n:]
	}
}

// U64s writes v as its length and 8 bytes per element, aligned as U32s.
func (w *Writer) U64s(v []uint64) {
	w.Uvarint(uint64(len(v)))
	w.align()
	var block [4096]byte
	for len(v) > 0 && w.err == nil {
		n := min(len(v), len(block)/8)
		for i, x := range v[:n] {
			binary.LittleEndian.PutUint64(block[8*i:], x)
		}
		w.Raw(block[:8*n])
		v = v[n:]
	}
}

// MaxAlign is the largest alignment of an array (U32sAligned): a cache line.
const MaxAlign = 64

// align writes zeros up to the next multiple of 8 bytes written.
func (w *Writer) align() { w.alignTo(8) }

// alignTo writes zeros up to the next multiple of n bytes written.
func (w *Writer) alignTo(n int) {
	checkAlign(n)
	if pad := -w.n & int64(n-1); pad > 0 {
		var zeros [MaxAlign]byte
		w.Raw(zeros[:pad])
	}
}

// checkAlign panics unless n is an alignment of the format: a caller's
// constant, the same when writing and reading.
func checkAlign(n int) {
	if n < 8 || n > MaxAlign || n&(n-1) != 0 {
		panic(fmt.Sprintf("binio: alignment %d is not a power of two from 8 to %d", n, MaxAlign))
	}
}

// Reader reads values from a buffered io.Reader, at most a given number of
// bytes, or from a byte slice (NewBytesReader).
type Reader struct {
	r      *bufio.Reader // nil: reading b
	b      []byte        // the bytes not read yet, when r is nil
	owner  any
	size   int64 // the bytes it may read in all
	remain int64
	err    error
}

// NewReader returns a Reader of at most size bytes of r.
func NewReader(r io.Reader, size int64) *Reader {
	return &Reader{r: bufio.NewReaderSize(r, 1<<16), size: size, remain: size}
}

// NewBytesReader returns a Reader of b. Its StringRef returns strings that
// share b's memory; owner is what keeps that memory valid (a memory-mapped
// file's handle), returned by Owner for the decoder to keep with them.
func NewBytesReader(b []byte, owner any) *Reader {
	return &Reader{b: b, owner: owner, size: int64(len(b)), remain: int64(len(b))}
}

// Owner is the owner given to NewBytesReader; nil for a Reader of an io.Reader.
func (r *Reader) Owner() any { return r.owner }

// Err returns the first error.
func (r *Reader) Err() error { return r.err }

// Remaining is the number of bytes the Reader may still read.
func (r *Reader) Remaining() int64 { return r.remain }

// Failf records a corruption found by the caller (a value out of range).
func (r *Reader) Failf(format string, args ...any) {
	if r.err == nil {
		r.err = fmt.Errorf("%w: %s", ErrCorrupt, fmt.Sprintf(format, args...))
	}
}

// take accounts for n bytes about to be read; false (and the error set)
// when they are not there.
func (r *Reader) take(n int64) bool {
	if r.err != nil {
		return false
	}
	if n < 0 || n > r.remain {
		r.Failf("%d bytes wanted, %d left", n, r.remain)
		return false
	}
	r.remain -= n
	return true
}

func (r *Reader) readFull(b []byte) {
	if !r.take(int64(len(b))) {
		return
	}
	if r.r == nil {
		r.b = r.b[copy(b, r.b):]
		return
	}
	if _, err := io.ReadFull(r.r, b); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			err = fmt.Errorf("%w: truncated", ErrCorrupt)
		}
		r.err = err
	}
}

// Raw reads exactly len(b) bytes into b.
func (r *Reader) Raw(b []byte) { r.readFull(b) }

// Byte reads one byte.
func (r *Reader) Byte() byte {
	if !r.take(1) {
		return 0
	}
	if r.r == nil {
		c := r.b[0]
		r.b = r.b[1:]
		return c
	}
	c, err := r.r.ReadByte()
	if err != nil {
		if errors.Is(err, io.EOF) {
			err = fmt.Errorf("%w: truncated", ErrCorrupt)
		}
		r.err = err
		return 0
	}
	return c
}

// Uvarint reads a uvarint.
func (r *Reader) Uvarint() uint64 {
	var x uint64
	for shift := uint(0); shift < 64; shift += 7 {
		c := r.Byte()
		if r.err != nil {
			return 0
		}
		x |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return x
		}
	}
	r.Failf("uvarint overflows 64 bits")
	return 0
}

// Varint reads a zigzag varint.
func (r *Reader) Varint() int64 {
	u := r.Uvarint()
	return int64(u>>1) ^ -int64(u&1)
}

// U32 reads 4 bytes.
func (r *Reader) U32() uint32 {
	var b [4]byte
	r.readFull(b[:])
	return binary.LittleEndian.Uint32(b[:])
}

// U64 reads 8 bytes.
func (r *Reader) U64() uint64 {
	var b [8]byte
	r.readFull(b[:])
	return binary.LittleEndian.Uint64(b[:])
}

// Len reads a count of elements of size bytes each, refusing one whose
// elements could not all be in the bytes left.
func (r *Reader) Len(size int) int {
	n := r.Uvarint()
	if r.err != nil {
		return 0
	}
	if size < 1 {
		size = 1
	}
	if n > uint64(r.remain)/uint64(size) {
		r.Failf("a count of %d elements of %d bytes, %d bytes left", n, size, r.remain)
		return 0
	}
	return int(n)
}

// String reads a length and that many bytes, as a string of its own memory
// (no copy beyond the read: the strings.Builder's buffer becomes the string).
func (r *Reader) String() string {
	n := r.Len(1)
	if n == 0 || !r.take(int64(n)) {
		return ""
	}
	if r.r == nil {
		s := string(r.b[:n])
		r.b = r.b[n:]
		return s
	}
	var b strings.Builder
	b.Grow(n)
	if _, err := io.CopyN(&b, r.r, int64(n)); err != nil {
		if errors.Is(err, io.EOF) {
			err = fmt.Errorf("%w: truncated", ErrCorrupt)
		}
		r.err = err
		return ""
	}
	return b.String()
}

// StringRef reads what String reads. From a NewBytesReader it is not
// copied: the string shares the reader's bytes, valid as long as its Owner
// keeps them (the caller keeps the Owner with the string). From an
// io.Reader it is String.
func (r *Reader) StringRef() string {
	if r.r != nil {
		return r.String()
	}
	n := r.Len(1)
	if n == 0 || !r.take(int64(n)) {
		return ""
	}
	s := unsafe.String(&r.b[0], n)
	r.b = r.b[n:]
	return s
}

// BytesRef reads what Bytes reads, shared with the reader's bytes as
// StringRef's string is (a copy from an io.Reader); nil for none. The caller
// must not change them.
func (r *Reader) BytesRef() []byte {
	if s := r.StringRef(); s != "" {
		return unsafe.Slice(unsafe.StringData(s), len(s))
	}
	return nil
}

// Bytes reads a length and that many bytes; nil for none.
func (r *Reader) Bytes() []byte {
	n := r.Len(1)
	if n == 0 {
		return nil
	}
	b := make([]byte, n)
	r.readFull(b)
	if r.err != nil {
		return nil
	}
	return b
}

// align skips the zeros the Writer's align wrote.
func (r *Reader) align() { r.alignTo(8) }

// alignTo skips the zeros up to the next multiple of n bytes read.
func (r *Reader) alignTo(n int) {
	checkAlign(n)
	for pad := -(r.size - r.remain) & int64(n-1); pad > 0 && r.err == nil; pad-- {
		if r.Byte() != 0 && r.err == nil {
			r.Failf("a non-zero byte before an array")
		}
	}
}

// littleEndian reports whether this machine's integers are stored as the
// format stores them, so that an array of the format's bytes is one of the
// machine's values.
var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// U32sRef reads what U32s reads. From a NewBytesReader whose bytes are
// aligned in memory, on a little-endian machine, it is not copied: the
// slice is the reader's bytes, valid as long as its Owner keeps them (see
// StringRef), and must not be written to. Otherwise it is U32s.
func (r *Reader) U32sRef() []uint32 { return r.U32sRefAligned(8) }

// U32sRefAligned is U32sRef of what U32sAligned(v, align) wrote.
func (r *Reader) U32sRefAligned(align int) []uint32 {
	n := r.Len(4)
	r.alignTo(align)
	if r.err != nil {
		return nil
	}
	if r.r != nil || !littleEndian || n == 0 || uintptr(unsafe.Pointer(unsafe.SliceData(r.b)))%4 != 0 {
		return r.u32s(n)
	}
	if !r.take(4 * int64(n)) {
		return nil
	}
	v := unsafe.Slice((*uint32)(unsafe.Pointer(&r.b[0])), n)
	r.b = r.b[4*n:]
	return v
}

// U64sRef is U32sRef of what U64s wrote.
func (r *Reader) U64sRef() []uint64 {
	if r.r != nil || !littleEndian {
		return r.U64s()
	}
	n := r.Len(8)
	r.align()
	if r.err != nil {
		return nil
	}
	if n == 0 || uintptr(unsafe.Pointer(unsafe.SliceData(r.b)))%8 != 0 {
		return r.u64s(n)
	}
	if !r.take(8 * int64(n)) {
		return nil
	}
	v := unsafe.Slice((*uint64)(unsafe.Pointer(&r.b[0])), n)
	r.b = r.b[8*n:]
	return v
}

// U32s reads what U32s wrote.
func (r *Reader) U32s() []uint32 {
	n := r.Len(4)
	r.align()
	if r.err != nil {
		return nil
	}
	return r.u32s(n)
}

// u32s reads n values after a U32s's length and padding.
func (r *Reader) u32s(n int) []uint32 {
	if r.err != nil {
		return nil
	}
	v := make([]uint32, n)
	var block [4096]byte
	for i := 0; i < n && r.err == nil; {
		k := min(n-i, len(block)/4)
		r.readFull(block[:4*k])
		for j := range k {
			v[i+j] = binary.LittleEndian.Uint32(block[4*j:])
		}
		i += k
	}
	if r.err != nil {
		return nil
	}
	return v
}

// U64s reads what U64s wrote.
func (r *Reader) U64s() []uint64 {
	n := r.Len(8)
	r.align()
	if r.err != nil {
		return nil
	}
	return r.u64s(n)
}

func (r *Reader) u64s(n int) []uint64 {
	if r.err != nil {
		return nil
	}
	v := make([]uint64, n)
	var block [4096]byte
	for i := 0; i < n && r.err == nil; {
		k := min(n-i, len(block)/8)
		r.readFull(block[:8*k])
		for j := range k {
			v[i+j] = binary.LittleEndian.Uint64(block[8*j:])
		}
		i += k
	}
	if r.err != nil {
		return nil
	}
	return v
}
