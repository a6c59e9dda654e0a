package asset

import (
	"crypto/md5"
	"encoding/hex"
	"strconv"
	"strings"
)

// maxSlugTitle is how many characters of a title a slug keeps.
const maxSlugTitle = 60

// Slugify derives a slug from a title the way the harnish engine does: lower
// case, every run of characters other than ASCII letters, digits and '-'
// turned into one '-', no '-' at either end, at most 60 characters. A title
// with nothing left (all non-ASCII, say) falls back to the first 12 hex
// digits of the MD5 of the title.
func Slugify(title string) string {
	var b strings.Builder
	dash := false
	for i := 0; i < len(title); i++ {
		c := title[i]
		switch {
		case 'A' <= c && c <= 'Z':
			c += 'a' - 'A'
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
		default:
			c = '-'
		}
		if c == '-' {
			if dash {
				continue
			}
			dash = true
		} else {
			dash = false
		}
		b.WriteByte(c)
	}
	s := strings.Trim(b.String(), "-")
	if len(s) > maxSlugTitle {
		s = s[:maxSlugTitle]
	}
	if s == "" {
		sum := md5.Sum([]byte(title))
		return hex.EncodeToString(sum[:])[:12]
	}
	return s
}

// uniqueSlug returns base, or base-2, base-3, ... the first that taken
// reports free.
func uniqueSlug(base string, taken func(string) bool) string {
	s := base
	for n := 2; taken(s); n++ {
		s = base + "-" + strconv.Itoa(n)
	}
	return s
}
