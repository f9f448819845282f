// Package encode holds synth's hand-written encoders for the four records a
// synthetic mirror has millions of. Each writes exactly the bytes of the
// lead's encoders (tcgplayer.Encode: indented envelope; cardmarket.Encode:
// compact), which encode_test.go and synth's TestEncodersMatchLeadEncoders
// check; they exist because reflection and re-indenting made encoding most
// of a million-card run's time.
package encode

import (
	"encoding/json"
	"math"
	"strconv"

	"github.com/cardcat/cardcat/internal/ingest/cardmarket"
	"github.com/cardcat/cardcat/internal/ingest/tcgplayer"
	"github.com/cardcat/cardcat/internal/jsonw"
)

func indent(b []byte, n int) []byte {
	for ; n > 0; n-- {
		b = append(b, ' ')
	}
	return b
}

// key appends `<indent>"name": `.
func key(b []byte, n int, name string) []byte {
	b = indent(b, n)
	b = append(b, '"')
	b = append(b, name...)
	return append(b, '"', ':', ' ')
}

// appendFloat is encoding/json's float64 encoding.
func appendFloat(b []byte, f *float64) []byte {
	if f == nil {
		return append(b, "null"...)
	}
	if abs := math.Abs(*f); abs != 0 && (abs < 1e-6 || abs >= 1e21) || math.IsNaN(*f) {
		v, _ := json.Marshal(*f) // never for prices; kept exact anyway
		return append(b, v...)
	}
	return strconv.AppendFloat(b, *f, 'f', -1, 64)
}

func appendStringPtr(b []byte, s *string) []byte {
	if s == nil {
		return append(b, "null"...)
	}
	return jsonw.AppendString(b, *s)
}

func appendInt(b []byte, n int) []byte { return strconv.AppendInt(b, int64(n), 10) }

// appendEnvelope appends a tcgcsv envelope around records appended by one.
func appendEnvelope(b []byte, n int, withTotal bool, one func(b []byte, i int) []byte) []byte {
	b = append(b, "{\n  \"errors\": [],\n  \"results\": "...)
	if n == 0 {
		b = append(b, "[]"...)
	} else {
		b = append(b, "[\n"...)
		for i := 0; i < n; i++ {
			if i > 0 {
				b = append(b, ",\n"...)
			}
			b = one(b, i)
		}
		b = append(b, "\n  ]"...)
	}
	b = append(b, ",\n  \"success\": true"...)
	if withTotal {
		b = append(b, ",\n  \"totalItems\": "...)
		b = appendInt(b, n)
	}
	return append(b, "\n}\n"...)
}

// AppendTCGProducts appends what tcgplayer.Encode(w, ps, true) writes.
func AppendTCGProducts(b []byte, ps []tcgplayer.Product) []byte {
	return appendEnvelope(b, len(ps), true, func(b []byte, i int) []byte {
		p := &ps[i]
		b = append(b, "    {\n"...)
		b = appendInt(key(b, 6, "categoryId"), p.CategoryID)
		b = jsonw.AppendString(key(append(b, ",\n"...), 6, "cleanName"), p.CleanName)
		b = key(append(b, ",\n"...), 6, "extendedData")
		if len(p.ExtendedData) == 0 {
			b = append(b, "[]"...)
		} else {
			b = append(b, "[\n"...)
			for k, e := range p.ExtendedData {
				if k > 0 {
					b = append(b, ",\n"...)
				}
				b = append(b, "        {\n"...)
				b = jsonw.AppendString(key(b, 10, "displayName"), e.DisplayName)
				b = jsonw.AppendString(key(append(b, ",\n"...), 10, "name"), e.Name)
				b = jsonw.AppendString(key(append(b, ",\n"...), 10, "value"), e.Value)
				b = append(b, "\n        }"...)
			}
			b = append(b, "\n      ]"...)
		}
		b = appendInt(key(append(b, ",\n"...), 6, "groupId"), p.GroupID)
		b = appendInt(key(append(b, ",\n"...), 6, "imageCount"), p.ImageCount)
		b = jsonw.AppendString(key(append(b, ",\n"...), 6, "imageUrl"), p.ImageURL)
		b = jsonw.AppendString(key(append(b, ",\n"...), 6, "modifiedOn"), p.ModifiedOn)
		b = jsonw.AppendString(key(append(b, ",\n"...), 6, "name"), p.Name)
		b = key(append(b, ",\n"...), 6, "presaleInfo")
		b = append(b, "{\n"...)
		b = strconv.AppendBool(key(b, 8, "isPresale"), p.PresaleInfo.IsPresale)
		b = appendStringPtr(key(append(b, ",\n"...), 8, "note"), p.PresaleInfo.Note)
		b = appendStringPtr(key(append(b, ",\n"...), 8, "releasedOn"), p.PresaleInfo.ReleasedOn)
		b = append(b, "\n      }"...)
		b = appendInt(key(append(b, ",\n"...), 6, "productId"), p.ProductID)
		b = jsonw.AppendString(key(append(b, ",\n"...), 6, "url"), p.URL)
		return append(b, "\n    }"...)
	})
}

// AppendTCGPrices appends what tcgplayer.Encode(w, ps, false) writes.
func AppendTCGPrices(b []byte, ps []tcgplayer.Price) []byte {
	return appendEnvelope(b, len(ps), false, func(b []byte, i int) []byte {
		p := &ps[i]
		b = append(b, "    {\n"...)
		b = appendInt(key(b, 6, "productId"), p.ProductID)
		b = appendFloat(key(append(b, ",\n"...), 6, "lowPrice"), p.LowPrice)
		b = appendFloat(key(append(b, ",\n"...), 6, "midPrice"), p.MidPrice)
		b = appendFloat(key(append(b, ",\n"...), 6, "highPrice"), p.HighPrice)
		b = appendFloat(key(append(b, ",\n"...), 6, "marketPrice"), p.MarketPrice)
		b = appendFloat(key(append(b, ",\n"...), 6, "directLowPrice"), p.DirectLowPrice)
		b = jsonw.AppendString(key(append(b, ",\n"...), 6, "subTypeName"), p.SubTypeName)
		return append(b, "\n    }"...)
	})
}

// AppendCMProduct appends one product as cardmarket.Encode writes it in a list.
func AppendCMProduct(b []byte, p *cardmarket.Product) []byte {
	b = appendInt(append(b, `{"idProduct":`...), p.IDProduct)
	b = jsonw.AppendString(append(b, `,"name":`...), p.Name)
	b = appendInt(append(b, `,"idCategory":`...), p.IDCategory)
	b = jsonw.AppendString(append(b, `,"categoryName":`...), p.CategoryName)
	b = appendInt(append(b, `,"idExpansion":`...), p.IDExpansion)
	b = appendInt(append(b, `,"idMetacard":`...), p.IDMetacard)
	b = jsonw.AppendString(append(b, `,"dateAdded":`...), p.DateAdded)
	return append(b, '}')
}

// guideFoilKeys are the keys of the price guide's second finish by suffix:
// "-foil", or "-holo" in Pokémon's files.
var guideFoilKeys = map[string][6]string{
	"foil": {`,"avg-foil":`, `,"low-foil":`, `,"trend-foil":`, `,"avg1-foil":`, `,"avg7-foil":`, `,"avg30-foil":`},
	"holo": {`,"avg-holo":`, `,"low-holo":`, `,"trend-holo":`, `,"avg1-holo":`, `,"avg7-holo":`, `,"avg30-holo":`},
}

// AppendCMGuide appends one price guide entry as cardmarket.Encode writes it,
// with Cardmarket's key suffix foil ("foil" or "holo") on the second finish.
func AppendCMGuide(b []byte, g *cardmarket.PriceGuide, foil string) []byte {
	k := guideFoilKeys[foil]
	b = appendInt(append(b, `{"idProduct":`...), g.IDProduct)
	b = appendInt(append(b, `,"idCategory":`...), g.IDCategory)
	b = appendFloat(append(b, `,"avg":`...), g.Avg)
	b = appendFloat(append(b, `,"low":`...), g.Low)
	b = appendFloat(append(b, `,"trend":`...), g.Trend)
	b = appendFloat(append(b, `,"avg1":`...), g.Avg1)
	b = appendFloat(append(b, `,"avg7":`...), g.Avg7)
	b = appendFloat(append(b, `,"avg30":`...), g.Avg30)
	b = appendFloat(append(b, k[0]...), g.AvgFoil)
	b = appendFloat(append(b, k[1]...), g.LowFoil)
	b = appendFloat(append(b, k[2]...), g.TrendFoil)
	b = appendFloat(append(b, k[3]...), g.Avg1Foil)
	b = appendFloat(append(b, k[4]...), g.Avg7Foil)
	b = appendFloat(append(b, k[5]...), g.Avg30Foil)
	return append(b, '}')
}
