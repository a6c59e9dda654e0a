package secretrules

import "testing"

// TestASCIIClassesFirst checks that the bytes of keywords in ASCII take
// the matcher's first classes, before those of keywords in other scripts
// listed ahead of them, so the skipping filter's 64 classes tell apart
// the bytes code is written in.
func TestASCIIClassesFirst(t *testing.T) {
	m := newMatcher([][]string{{"密码", "パスワード", "ароль", "contraseña"}, {"password", "token", "key", "://"}})
	maxASCII, minOther := uint8(0), uint8(255)
	for c := range 256 {
		cl := m.class[c]
		switch {
		case cl == 0:
		case c < 0x80:
			maxASCII = max(maxASCII, cl)
		default:
			minOther = min(minOther, cl)
		}
	}
	if maxASCII == 0 || minOther == 255 || maxASCII >= minOther {
		t.Errorf("ASCII classes end at %d, other bytes' start at %d: want every ASCII class first", maxASCII, minOther)
	}
	var hits int
	m.scan("数据库密码: x, Пароль=y, contraseña: z, PASSWORD=w", func(gs []uint16, _ int) { hits += len(gs) })
	if hits != 4 {
		t.Errorf("scan found %d keywords, want 4", hits)
	}
}
