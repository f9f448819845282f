package httpapi

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/cardcat/cardcat/internal/etag"
	"github.com/cardcat/cardcat/internal/web"
)

// reply is what a keyed route's handler answers with: the answer, decided
// before a byte is written, so that admission (admission.go) can tell a
// revalidation's 304 from an answer to count, and then send it (sendReply).
// A handler's failure is its error instead (errors.go).
type reply struct {
	kind        web.BodyKind
	contentType []string

	// The body: body, or str when body is nil and page is empty; or a set
	// page, assembled from the snapshot's parts only when its bytes are
	// sent: not for a 304, nor for a compressed variant already kept.
	body []byte
	str  string
	page setPage
	// cardOf, when set, makes body the card detail of card, assembled from
	// the snapshot only when its bytes are needed: a revalidation's 304
	// never reads the card's row (a cache miss in a large catalogue).
	cardOf *catalog.GameSnapshot
	card   catalog.CardRef

	// tag is the body's identity ETag when the handler knows it (the
	// snapshot keeps card details' and set pages', analytics the paid
	// answers'); "" hashes the body.
	tag string
	// buf is the pooled buffer holding body, given back once it is sent.
	buf *[]byte

	// header sets the headers both the answer and its 304 have (an image's
	// Cache-Control, a CSV's Content-Disposition); nil sets none.
	header func(http.Header)
	// stream, when set, writes the 200 itself, headers and body (an image,
	// a bulk file): never compressed, and its tag must be set.
	stream func(w http.ResponseWriter, r *http.Request)
	// close, when set, frees what the reply holds (an open file) once it is
	// sent or refused.
	close func()
}

// keptReply is a JSON body that is the same for the whole catalogue version
// (a set list, a paid answer): its compressed variants are kept.
func keptReply(body []byte) reply {
	return reply{kind: web.Kept, contentType: jsonContentType, body: body}
}

// jsonReply marshals v into a kept JSON reply. The values marshalled here
// are the API's own types, so a marshalling failure is a programming error.
func jsonReply(v any) reply {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("httpapi: marshal %T: %v", v, err))
	}
	return keptReply(b)
}

// madeReply is a body made for this request in the pooled buffer bp (a
// search, a batch, the change feed, a price history): compressed at a fast
// level and not kept.
func madeReply(contentType []string, bp *[]byte) reply {
	return reply{kind: web.Made, contentType: contentType, body: *bp, buf: bp}
}

// length is the body's length in bytes.
func (rp *reply) length() int {
	switch {
	case rp.cardOf != nil:
		return rp.cardOf.CardLen(rp.card)
	case rp.page.g != nil:
		return rp.page.length()
	case rp.body != nil:
		return len(rp.body)
	}
	return len(rp.str)
}

// bytes makes the body when it is assembled or read lazily; after it, body
// or str holds it.
func (rp *reply) bytes() {
	switch {
	case rp.cardOf != nil:
		bp := getBuffer()
		rp.body, rp.buf = rp.cardOf.AppendCard(*bp, rp.card), bp
		*bp, rp.cardOf = rp.body, nil
	case rp.page.g != nil:
		bp := getBuffer()
		rp.body, rp.buf = rp.page.appendTo(*bp), bp
		*bp = rp.body
		rp.page = setPage{}
	}
}

// release gives the reply's buffer back and frees what it holds.
func (rp *reply) release() {
	if rp.buf != nil {
		putBuffer(rp.buf)
		rp.buf = nil
	}
	if rp.close != nil {
		rp.close()
		rp.close = nil
	}
}

// settle settles the content coding the reply is sent in, and its identity
// tag: the handler's, or a hash of the body.
func (rp *reply) settle(resp *web.Response) web.Coding {
	c := web.Identity
	if rp.stream == nil && resp.Compresses() {
		c = resp.Coding(rp.kind, rp.length())
	}
	if rp.tag == "" {
		rp.bytes()
		if rp.body == nil {
			rp.tag = etag.OfString(rp.str)
		} else {
			rp.tag = etag.Of(rp.body)
		}
	}
	return c
}

// sendReply writes a keyed route's reply in coding c, with the ETag of
// that representation: the 304 without a body when notModified.
func (s *Server) sendReply(w http.ResponseWriter, r *http.Request, rp *reply, c web.Coding, notModified bool) {
	defer rp.release()
	st := stateOf(r.Context())
	web.SetField(w, web.FieldCacheControl, s.keyedCacheControl) // unless the reply says otherwise (images)
	if rp.header != nil {
		rp.header(w.Header()) // the map from then on: rare routes (images, bulk files)
	}
	if rp.stream == nil {
		web.SetField(w, web.FieldVary, web.VaryAcceptEncoding)
	}
	st.etag[0] = web.VariantTag(rp.tag, c)
	web.SetField(w, web.FieldEtag, st.etag[:])
	if notModified {
		web.DelField(w, web.FieldContentType)
		w.WriteHeader(http.StatusNotModified)
		return
	}
	if rp.stream != nil {
		rp.stream(w, r)
		return
	}
	if c == web.Identity {
		if rp.page.g != nil {
			rp.page.send(w, rp.contentType)
			return
		}
		rp.bytes()
		if rp.body == nil {
			web.SendBodyString(w, rp.contentType, rp.str)
		} else {
			web.SendBody(w, rp.contentType, rp.body)
		}
		return
	}
	web.SetField(w, web.FieldContentEncoding, web.ContentEncoding[c])
	if rp.kind == web.Kept {
		cache := web.ResponseOf(w).Cache()
		v, ok := cache.Peek(rp.tag, c)
		if !ok {
			rp.bytes()
			v = cache.Get(rp.tag, c, rp.body, rp.str)
		}
		defer v.Release()
		web.SendBody(w, rp.contentType, v.Bytes())
		return
	}
	rp.bytes()
	body := rp.body
	if body == nil {
		body = []byte(rp.str)
	}
	web.SendBody(w, rp.contentType, web.Encode(c, rp.kind, body))
}
