package guardrail

import (
	"strings"
	"testing"
)

// saasFinders are secrets_saas.go's readings, by name: in a source file,
// and in a file named kaggle.json.
var saasFinders = map[string]func(string) []found{
	"lines":  (&scanFile{path: "src/sync.py"}).findSaaS,
	"kaggle": (&scanFile{path: "home/.kaggle/kaggle.json"}).findSaaS,
}

func init() { addFinders("saas-", saasFinders) }

// TestSaaSFinders checks the bytes secrets_saas.go's readings take, and
// that they take nothing of the look-alikes beside them. The values are
// random, of each provider's documented shape.
func TestSaaSFinders(t *testing.T) {
	const (
		kaggle   = "3f9c0e2ab71d48c6905e1f7a2d4b8c61"
		zapier   = "hooks.zapier.com/hooks/catch/4820317/b7kq2mx/"
		makeHook = "hook.us1.make.com/q8vz2k4m1n7p0w3x5c9b6j2h4t8r1y0e"
		zendesk  = "Wq7Lr2Xk9Tz4Bn6Vm1Pc8Hd3Fs5Gj0Ka2Ye7Ru4Q"
		fresh    = "Hk2Pq9Lm4Xz7Wc1Rv6Tb"
		asana    = "2/1203958120394857/1207728391029384:4e9a1c2b7d3f80a65c1e9b2d4f7a0c38"
	)
	checkFinders(t, saasFinders, []finderCase{
		// A kaggle.json's key, in the file or written to it.
		{"kaggle", `  "key": "` + kaggle + `"`, []string{kaggle}},
		{"lines", `!echo '{\"username\":\"ana\",\"key\":\"` + kaggle + `\"}' > ~/.kaggle/kaggle.json`, []string{kaggle}},
		{"lines", `KAGGLE_KEY_JSON = '{"username": "ana", "key": "` + kaggle + `"}'  # kaggle`, []string{kaggle}},
		// Webhooks whose path is the secret.
		{"lines", `ZAP = "https://` + zapier + `"`, []string{zapier[:len(zapier)-1]}},
		{"lines", `MAKE_WEBHOOK_URL=https://` + makeHook, []string{makeHook}},
		{"lines", `url: https://hook.integromat.com/q8vz2k4m1n7p0w3x5c9b6j2h4t8r1y0e`, []string{"hook.integromat.com/q8vz2k4m1n7p0w3x5c9b6j2h4t8r1y0e"}},
		// Zendesk's EMAIL/token:TOKEN, Freshdesk's (KEY, "X").
		{"lines", `auth = b64encode(b"agent@acme.io/token:` + zendesk + `")`, []string{zendesk}},
		{"lines", `r = requests.get(url, auth=("` + fresh + `", "X"))`, []string{fresh}},
		{"lines", `  auth: ('` + fresh + `', 'x'),`, []string{fresh}},
		{"lines", `curl -v -u ` + fresh + `:X -H "Content-Type: application/json" https://acme.freshdesk.com/api/v2/tickets`, []string{fresh}},
		{"lines", `  curl --user '` + fresh + `:x' https://acme.freshdesk.com/api/v2/contacts`, []string{fresh}},
		// An Asana PAT after Bearer.
		{"lines", `headers = {"Authorization": "Bearer ` + asana + `"}`, []string{asana}},
		{"lines", `Authorization: bearer 1/120395812:4e9a1c2b7d3f80a65c1e9b2d4f7a0c38`, []string{"1/120395812:4e9a1c2b7d3f80a65c1e9b2d4f7a0c38"}},
		// Look-alikes: a key outside kaggle's file and lines, hashes,
		// placeholders, documentation's examples, references.
		{"lines", `  "key": "` + kaggle + `"`, nil},
		{"kaggle", `  "username": "ana"`, nil},
		{"kaggle", `  \"key\": \"` + kaggle + `\"`, nil}, // escaped, and no word kaggle: not the file's own line
		{"lines", `auth=("` + fresh + `', "X")`, []string{fresh}},
		{"lines", `auth=("` + fresh + `", 'X")`, nil},
		{"kaggle", `{"username":"YOUR_KAGGLE_USERNAME","key":"YOUR_KAGGLE_KEY"}`, nil},
		{"kaggle", `  "key": "00000000000000000000000000000000"`, nil},
		{"lines", `see https://hooks.zapier.com/hooks/catch/123456/abcdef/ in the docs`, nil},
		{"lines", `ZAPIER_URL=https://hooks.zapier.com/hooks/catch/${ZAP_ID}/${ZAP_KEY}/`, nil},
		{"lines", `the scenario at https://www.make.com/en/help/tools/webhooks explains it`, nil},
		{"lines", `curl -u ${ZENDESK_EMAIL}/token:${ZENDESK_TOKEN} https://acme.zendesk.com`, nil},
		{"lines", `auth = f"{email}/token:{token}"`, nil},
		{"lines", `requests.get(url, auth=(api_key, "X"))`, nil},
		{"lines", `requests.get(url, auth=("YOUR_API_KEY", "X"))`, nil},
		{"lines", `plot(("abcdefghijklmnopq", "x"))`, nil},
		{"lines", `curl -v -u abcdefghij1234567890:X https://domain.freshdesk.com/api/v2/tickets`, nil},
		{"lines", `curl -u $FRESHDESK_KEY:X https://domain.freshdesk.com/api/v2/tickets`, nil},
		{"lines", `curl -u admin:x https://localhost`, nil},
		{"lines", `Authorization: Bearer 2/<user_id>/<app_id>:<token>`, nil},
		{"lines", `Authorization: Bearer 2/1203958120394857/1207728391029384:` + "00000000000000000000000000000000", nil},
	})
}

// TestSaaSReadings checks the readings through ScanSecrets: what each
// finds in a whole file, and the Algolia search-only keys it allows.
func TestSaaSReadings(t *testing.T) {
	const hex32 = "7c1e9a04b25d48f3a6e0c9d218b7f453"
	for _, c := range []struct {
		path, text string
		secret     bool
	}{
		{"kaggle.json", "{\n  \"username\": \"ml-team\",\n  \"key\": \"" + hex32 + "\"\n}\n", true},
		{"config/kaggle.json.example", "{\n  \"username\": \"ml-team\",\n  \"key\": \"" + hex32 + "\"\n}\n", false},
		{"scripts/reindex.py", "client = SearchClient.create(\"LATENCY01\", \"" + hex32 + "\")\n", true},
		{"src/search.ts", "const searchClient = algoliasearch('LATENCY01', '" + hex32 + "');\n", false},
		{"src/search.py", "search_client = SearchClient.create('LATENCY01', '" + hex32 + "')\n", false},
		{"src/admin.ts", "const client = algoliasearch('LATENCY01', '" + hex32 + "');\n", true},
		{"src/admin.ts", "if (searchClient == algoliasearch('LATENCY01', '" + hex32 + "')) {}\n", true},
		{".env", "NEXT_PUBLIC_ALGOLIA_SEARCH_ONLY_KEY=" + hex32 + "\n", false},
		{"src/search.js", "const ALGOLIA_SEARCH_KEY = '" + hex32 + "';\n", false},
		{".env", "ALGOLIA_ADMIN_API_KEY=" + hex32 + "\n", true},
		{".env", "ALGOLIA_API_KEY=" + hex32 + "\n", true},
	} {
		if got := ScanSecrets(c.path, c.text); (len(got) > 0) != c.secret {
			t.Errorf("ScanSecrets(%q, %q) = %+v, want a secret: %v", c.path, c.text, got, c.secret)
		}
	}
}

// TestSaaSKeywords checks that the readings find nothing on a line of the
// corpora that holds none of the detector's keywords, in either file, as
// the keyword pass assumes.
func TestSaaSKeywords(t *testing.T) {
	n := 0
	for _, c := range secretTexts(t) {
		for l := range strings.SplitSeq(c[1], "\n") {
			if containsAnyFold(l, saasDetector.keywords) {
				continue
			}
			for name, find := range saasFinders {
				n++
				if got := find(l); len(got) > 0 {
					t.Errorf("%s found %+v on a line without its keywords: %q", name, got, l)
				}
			}
		}
	}
	if n < 1000 {
		t.Fatalf("only %d lines: the test compares too little", n)
	}
}
