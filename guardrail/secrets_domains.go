package guardrail

import (
	"encoding/base32"
	"encoding/base64"
	"path"
	"strings"
)

// This file holds the readings held-out set 13 (domains and credential
// names no set had stressed, written blind) found missing. Web3: a wallet's
// private key (64 hex, with 0x or not) under a signer's or a key's name, or
// given to the call that makes a wallet of it (new Wallet("0x..."),
// Account.from_key, HexToECDSA, accounts.add, a LocalWallet parsed from a
// literal), a Solana secret key as 64 bytes or base58 beside a keypair's
// name, a mnemonic given to fromPhrase and the like, and a node provider's
// key in its RPC URL (Infura, Alchemy, QuickNode, Ankr, Chainstack); Anvil's and Hardhat's published default keys are
// allowed, as the test mnemonic they come from is. Devices and networks:
// an SNMP community (rocommunity, com2sec, community = ..., snmpwalk -c),
// a Tasmota Backlog's passwords, xfreerdp's /p:. Auth: a TOTP seed given
// to TOTP/HOTP calls or under a seed's name, a literal list of keys or
// secrets (Koa's app.keys), CryptoKit's SymmetricKey of a literal,
// basic_authorization's base64 user:password, MaxMind's LicenseKey line,
// Authorize.Net's transaction key, a recovery-codes file and a list of
// recovery or backup codes. And a call's or a map's values on the lines
// after the one that opens it (securecookie.New(⏎[]byte("..."),
// LiveEnvironment(⏎"id",⏎"secret", apiKey: {⏎mainnet: "..."}). Like every
// detector each runs only on a line with its keyword and checks bytes
// before anything else; the values opened on the line before are read by
// derived, when the line before ends with ( [ { , or :.

func init() { detectors = append(detectors, domainDetectors...) }

var domainDetectors = []detector{
	{
		rule: RuleSecretPrivateKey, what: "private key (wallet)",
		// secrets for a list of them (COOKIE_SECRETS: [...]).
		keywords: []string{"key", "wallet", "ecdsa", "accounts", "secrets"},
		may:      walletMay,
		find:     func(text, _ string, _ bool) []found { return findWalletKeys(text) },
	},
	{
		// The providers' names, each from a byte where few words start
		// (nfura, not infura, which starts as info does): "://" would
		// wake the detector on every URL.
		rule: RuleSecretURL, what: "API key in a node provider's URL",
		keywords: []string{"nfura.io", "lchemy", "uiknode", "nkr.com", "p2pify"},
		find:     func(text, _ string, _ bool) []found { return findRPCKeys(text) },
	},
	{
		// phrase and mnemonic for the calls that take a mnemonic
		// (fromPhrase, mnemonicToSeed), symmetrickey( for CryptoKit's.
		rule: RuleSecretAssignment, what: "literal credential",
		// Keywords start where few words of code do, which keeps the
		// keyword scan's skipping fast: mmunity for community, m2sec
		// for com2sec, otp for totp and hotp, cklog for Backlog, sekey
		// for LicenseKey, erdp for xfreerdp.
		keywords: []string{"mmunity", "m2sec", "snmp", "otp", "seed", "cklog", "sekey",
			"transactionkey", "transaction_key", "basic_authorization", "erdp", "phrase", "mnemonic", "symmetrickey("},
		find: func(text, _ string, _ bool) []found { return findDeviceCredentials(text) },
	},
}

// walletMay reports whether a line may hold what findWalletKeys finds: a
// run of 64 or more letters and digits (64 hex digits, 86 to 88 base58
// ones), a list opened after a name, 64 numbers. Any 64 bytes in a row
// hold one whose offset is 63 modulo 64, so a run is looked for only
// around those.
func walletMay(text string) bool {
	if len(text) < 64 {
		return strings.IndexByte(text, '[') >= 0 && listOpened(text)
	}
	for i := 63; i < len(text); i += 64 {
		if !alnumByte(text[i]) {
			continue
		}
		s, e := i, i+1
		for s > 0 && alnumByte(text[s-1]) {
			s--
		}
		for e < len(text) && alnumByte(text[e]) {
			e++
		}
		if e-s >= 64 {
			return true
		}
	}
	return strings.IndexByte(text, '[') >= 0 && (listOpened(text) || len(text) >= 127 && strings.Count(text, ",") >= 63)
}

// listOpened reports whether a '[' of the line follows '=' or ':', past
// blanks: a list assigned to a name.
func listOpened(text string) bool {
	for i := range places(text, "[") {
		j := i
		for j > 0 && (text[j-1] == ' ' || text[j-1] == '\t') {
			j--
		}
		if j > 0 && (text[j-1] == '=' || text[j-1] == ':') {
			return true
		}
	}
	return false
}

// findWalletKeys finds a wallet's key material: 64 hex digits a signer's
// name or a wallet's call owns, 64 bytes or 86 to 88 base58 digits on a
// line that names a keypair or a secret key, a mnemonic a call takes, the
// literals of a list of keys or secrets, a SymmetricKey's literal.
func findWalletKeys(text string) []found {
	var out []found
	hexRun, alnumRun := 0, 0
	for i := 0; i <= len(text); i++ {
		var c byte
		if i < len(text) {
			c = text[i]
		}
		if i < len(text) && hexByte(c) {
			hexRun++
		} else {
			if s := i - hexRun; hexRun == 64 && (s == 0 || !wordByte(text[s-1]) || hexPrefixed(text, s)) && (i == len(text) || !wordByte(c)) {
				if f, ok := walletHex(text, s, i); ok {
					out = append(out, f)
				}
			}
			hexRun = 0
		}
		if i < len(text) && alnumByte(c) {
			alnumRun++
		} else {
			if s := i - alnumRun; alnumRun >= 86 && alnumRun <= 88 && base58Text(text[s:i]) && keypairLine(text) && !overlaps(out, s, i) {
				out = append(out, keyFound(text[s:i], s, i))
			}
			alnumRun = 0
		}
	}
	if strings.Count(text, ",") >= 63 {
		out = appendApart(out, findByteKeys(text))
	}
	if listOpened(text) {
		out = appendApart(out, findKeyLists(text))
	}
	return out
}

// findSymmetricKeys finds CryptoKit's SymmetricKey made of a literal:
// SymmetricKey(data: Data("...".utf8)).
func findSymmetricKeys(text string) []found {
	i := indexFold(text, "symmetrickey(")
	if i < 0 {
		return nil
	}
	if q := strings.IndexAny(text[i:], `"'`); q >= 0 {
		if e, v, ok := quotedAt(text, i+q); ok && secretLiteral(v) && generatedSecret(v) {
			return []found{foundAt(text, i+q+1, e)}
		}
	}
	return nil
}

// appendApart appends those of more that overlap none of out.
func appendApart(out, more []found) []found {
	for _, f := range more {
		if !overlaps(out, f.start, f.end) {
			out = append(out, f)
		}
	}
	return out
}

// hexPrefixed reports whether the hex digits at s follow 0x, which
// follows no word.
func hexPrefixed(text string, s int) bool {
	return s >= 2 && text[s-1]|0x20 == 'x' && text[s-2] == '0' && (s == 2 || !wordByte(text[s-3]))
}

// walletHex judges the 64 hex digits at text[s:e]: a key when the name
// or the call that owns them is a signer's or a key's, and they are
// neither a published test key nor a pattern (a storage key 0x00...03,
// digits alone).
func walletHex(text string, s, e int) (found, bool) {
	p := s
	if hexPrefixed(text, s) {
		p = s - 2
	}
	v := strings.ToLower(text[s:e])
	// 64 random hex digits hold a letter but once in 10^13: digits alone
	// are a number or a counted pattern (0102...3132).
	if publishedTestKey(v) || distinctBytes(v) < 10 || isPlaceholder(v) || !strings.ContainsAny(v, "abcdef") {
		return found{}, false
	}
	if !walletOwner(ownerBefore(text, p)) {
		return found{}, false
	}
	return keyFound(text[p:e], p, e), true
}

// distinctBytes counts the distinct bytes of s.
func distinctBytes(s string) int {
	var seen [256]bool
	n := 0
	for i := 0; i < len(s); i++ {
		if !seen[s[i]] {
			seen[s[i]] = true
			n++
		}
	}
	return n
}

// ownerBefore returns the name that owns a value starting at p: the name
// assigned it (NAME=, name: , uint256 name = , --name), the call given it
// (from_key(, Wallet(, accounts.add(), or the name whose fallback it is
// (process.env.SIGNER_KEY || "..."), with its qualifiers.
func ownerBefore(text string, p int) string {
	i := p
	skip := func(set string) {
		for i > 0 && strings.IndexByte(set, text[i-1]) >= 0 {
			i--
		}
	}
	skip(" \t\"'`[{(")
	switch {
	case i >= 2 && (text[i-2:i] == "||" || text[i-2:i] == "??" || text[i-2:i] == "=>" || text[i-2:i] == ":="):
		i -= 2
	case i >= 3 && text[i-3:i] == " or":
		i -= 3
	case i >= 1 && (text[i-1] == '=' || text[i-1] == ':'):
		i--
	}
	skip(" \t\"'`")
	e := i
	for i > 0 && (wordByte(text[i-1]) || text[i-1] == '.' || text[i-1] == '-') {
		i--
	}
	return strings.TrimLeft(text[i:e], "-.")
}

// walletOwner reports whether name, the owner of 64 hex digits, says they
// are a private key: a signer's or a wallet's name, a name whose last word
// is key with a word before it (DEPLOYER_KEY, privateKey, from_key), not
// one that says they are a hash, an address, a slot, a public key or a
// fixture's.
func walletOwner(name string) bool {
	if name == "" {
		return false
	}
	words := splitWords(name)
	if notKeyName(words) {
		return false
	}
	if l := strings.ToLower(name); strings.Contains(l, "privatekey") || strings.Contains(l, "privkey") {
		return true // privateKeyToAccount
	}
	last := words[len(words)-1]
	switch last {
	case "pk", "sk", "privkey", "privatekey", "keypair", "wallet", "signer", "hextoecdsa", "localwallet":
		return true
	case "key", "keys":
		return len(words) >= 2
	}
	if len(words) >= 2 && words[len(words)-2] == "accounts" && last == "add" { // brownie's accounts.add("...")
		return true
	}
	for _, w := range words {
		switch w {
		case "wallet", "signer", "ecdsa", "hextoecdsa", "privatekeys", "accounts":
			return true
		}
	}
	return false
}

// notKeyName reports whether a name's words say its value is not a
// secret key however it ends: a hash, an address, a slot, a public key,
// a lookup's key, or a fixture's.
func notKeyName(words []string) bool {
	for _, w := range words {
		switch w {
		case "public", "pub", "hash", "hashes", "digest", "slot", "topic", "topics", "salt", "root", "tx", "txn",
			"block", "address", "addr", "id", "role", "node", "selector", "storage", "cache", "idempotency",
			"lookup", "checksum", "sum", "signature", "sig", "nonce", "leaf", "proof", "code", "commitment",
			"event", "partition", "sort", "primary", "foreign", "index", "verifying", "verification", "map",
			"object", "blob", "content", "file", "commit", "sha", "sha256", "md5", "fingerprint", "etag",
			"integrity", "dedup", "routing", "row",
			"test", "mock", "fake", "dummy", "example", "sample", "fixture", "expected":
			return true
		}
	}
	return false
}

// publishedTestKey reports whether v, 64 lowercase hex digits, is one of
// the keys Anvil and Hardhat fund by default, derived from the well-known
// test mnemonic and printed by both at every start: they guard nothing.
func publishedTestKey(v string) bool {
	switch v {
	case "ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80",
		"59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d",
		"5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a",
		"7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6",
		"47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a",
		"8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba",
		"92db14e403b83dfe3df233f83dfa3a0d7096f21ca9b0d6d6b8d88b2b4ec1564e",
		"4bbbf85ce3377467afe5d46f804f221813b2bb87f24d81f60f1fcdbf7cbf4356",
		"dbda1821b80551c9d65939329250298aa3472ba22feea921c0cf5d620ea67b97",
		"2a871d0798f97d79848a013d4936a73bf4cc922c825d33c1cf7073dff6d409c6",
		"f214f2b2cd398c806f84e317254e0f0b801d0643303237d97a22a48e01628897",
		"701b615bbdfb9de65240bc28bd21bbc0d996645a3dd57e7b12bc2bdf6f192c82",
		"a267530f49f8280200edf313ee7af6b827f2a8bce2897751d06a843f644967b1",
		"47c99abed3324a2707c28affff1267e45918ec8c3f20b8aa892e8b065d2942dd",
		"c526ee95bf44d8fc405a158bb884d9d1238d99f0612e9f33d006bb0789009aaa",
		"8166f546bab6da521a8369cab06c5d2b9e46670292d85c875ee9ec20e84ffb61",
		"ea6c44ac03bff858b476bba40716402b03e41b8e97e276d1baec7c37d42484a0":
		return true
	}
	return false
}

// base58Text reports whether v is in Bitcoin's base58 alphabet (no 0, O,
// I or l) and mixes digits with letters of both cases.
func base58Text(v string) bool {
	var upper, lower, digit bool
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c == '0' || c == 'O' || c == 'I' || c == 'l':
			return false
		case c >= '1' && c <= '9':
			digit = true
		case c >= 'A' && c <= 'Z':
			upper = true
		case c >= 'a' && c <= 'z':
			lower = true
		}
	}
	return digit && upper && lower
}

// keypairLine reports whether a line names a keypair or a secret or
// private key, which a Solana key's 64 bytes or base58 digits are there
// (a transaction's signature, as long, is named otherwise).
func keypairLine(text string) bool {
	for _, w := range []string{"keypair", "secretkey", "secret_key", "privatekey", "private_key", "wallet", "signer"} {
		if containsFold(text, w) {
			return true
		}
	}
	return false
}

// findByteKeys finds 64 bytes in brackets ([12,201,...]) on a line that
// names a keypair or a secret key: Keypair.fromSecretKey(Uint8Array.from([...])).
// A whole line of them, a keypair file, is findKeypair's.
func findByteKeys(text string) []found {
	if strings.Count(text, ",") < 63 || !keypairLine(text) {
		return nil
	}
	var out []found
	for i := range places(text, "[") {
		j := strings.IndexByte(text[i:], ']')
		if j < 0 {
			break
		}
		if keypairArray(text[i : i+j+1]) {
			out = append(out, keyFound(text[i:i+j+1], i, i+j+1))
		}
	}
	return out
}

// findKeyLists finds the generated literals of a list assigned to a name
// whose last word is keys or secrets (Koa's app.keys = ['...', '...'],
// COOKIE_SECRETS: [...]), and the first hex key of a signer's list
// (privateKeys: ['...']).
func findKeyLists(text string) []found {
	var out []found
	for _, w := range []string{"keys", "secrets"} {
		for k := range placesFold(text, w) {
			e := k + len(w)
			if e < len(text) && wordByte(text[e]) {
				continue
			}
			s := k
			for s > 0 && (wordByte(text[s-1]) || text[s-1] == '.') {
				s--
			}
			if notKeyName(splitWords(text[s:e])) {
				continue
			}
			i := skipSpace(text, e)
			if i < len(text) && (text[i] == '"' || text[i] == '\'') {
				i = skipSpace(text, i+1)
			}
			if i >= len(text) || text[i] != '=' && text[i] != ':' {
				continue
			}
			i = skipSpace(text, i+1)
			if i >= len(text) || text[i] != '[' {
				continue
			}
			for i++; ; {
				i = skipSpace(text, i)
				end, v, ok := quotedAt(text, i)
				if !ok {
					break
				}
				if secretLiteral(v) && generatedSecret(v) && !overlaps(out, i+1, end) {
					out = append(out, found{Secret: Secret{Rule: RuleSecretAssignment, What: "literal credential", Masked: mask(v)}, start: i + 1, end: end})
				}
				i = skipSpace(text, end+1)
				if i >= len(text) || text[i] != ',' {
					break
				}
				i++
			}
		}
	}
	return out
}

// findMnemonicCalls finds a mnemonic (12 to 24 lower-case words) given to
// a call named for one: Wallet.fromPhrase("..."), mnemonicToSeedSync,
// Mnemonic.to_seed, HDNodeWallet.fromMnemonic.
func findMnemonicCalls(text string) []found {
	var out []found
	for i := 0; i < len(text); i++ {
		q := text[i]
		if q != '"' && q != '\'' && q != '`' {
			continue
		}
		e := closing(text, i+1, q)
		if e >= len(text) {
			break
		}
		if v := text[i+1 : e]; mnemonicWords(v) {
			if callee := strings.ToLower(calleeBefore(text, i)); strings.Contains(callee, "phrase") || strings.Contains(callee, "mnemonic") || strings.Contains(callee, "seed") {
				out = append(out, found{Secret: Secret{Rule: RuleSecretAssignment, What: "wallet mnemonic", Masked: mask(v)}, start: i + 1, end: e})
			}
		}
		i = e
	}
	return out
}

// calleeBefore returns the name of the call whose first argument starts
// at i, past blanks and the '(': Wallet.fromPhrase, bip39.mnemonicToSeed.
func calleeBefore(text string, i int) string {
	for i > 0 && (text[i-1] == ' ' || text[i-1] == '\t') {
		i--
	}
	if i == 0 || text[i-1] != '(' {
		return ""
	}
	e := i - 1
	s := e
	for s > 0 && (wordByte(text[s-1]) || text[s-1] == '.' || text[s-1] == ':') {
		s--
	}
	return text[s:e]
}

// mnemonicWords reports whether v is a BIP-39 mnemonic's shape: 12 to 24
// words, a multiple of three, each of 3 to 8 lower-case letters; not a
// placeholder (hardhat's "test test ... junk" says test).
func mnemonicWords(v string) bool {
	words := strings.Fields(v)
	if len(words) < 12 || len(words) > 24 || len(words)%3 != 0 {
		return false
	}
	for _, w := range words {
		if len(w) < 3 || len(w) > 8 || strings.Trim(w, "abcdefghijklmnopqrstuvwxyz") != "" {
			return false
		}
	}
	return !isPlaceholder(v)
}

// rpcHosts are node providers whose RPC URL carries the account's key in
// its path, after the host (and a path prefix): by the host's last two
// labels, the whole host when only one serves keys, and the key's shape.
var rpcHosts = map[string]struct {
	host, prefix string
	key          func(string) bool
}{
	"infura.io":     {"", "/v3/", func(v string) bool { return len(v) == 32 && hexOnly(v) }},
	"alchemy.com":   {"", "/v2/", func(v string) bool { return len(v) >= 20 && allBytes(v, urlSafeByte) }},
	"alchemyapi.io": {"", "/v2/", func(v string) bool { return len(v) >= 20 && allBytes(v, urlSafeByte) }},
	"quiknode.pro":  {"", "/", func(v string) bool { return len(v) >= 32 && hexOnly(v) }},
	"ankr.com":      {"rpc.ankr.com", "/*/", func(v string) bool { return len(v) == 64 && hexOnly(v) }},
	"p2pify.com":    {"", "/", func(v string) bool { return len(v) == 32 && hexOnly(v) }},
}

// findRPCKeys finds the key in a node provider's RPC URL:
// https://mainnet.infura.io/v3/<32 hex>, .../v2/<key> at Alchemy,
// <name>.quiknode.pro/<token>/, rpc.ankr.com/<chain>/<64 hex>. Allowed: a
// ${VAR} or <placeholder> in its place, a key of one character. Each
// URL's host is read once and matched by its end.
func findRPCKeys(text string) []found {
	var out []found
	for k := 0; ; {
		c := strings.Index(text[k:], "://")
		if c < 0 {
			break
		}
		h := k + c + 3
		i := h
		for i < len(text) && (alnumByte(text[i]) || text[i] == '.' || text[i] == '-') {
			i++
		}
		k = i
		host := text[h:i]
		d := strings.LastIndexByte(host, '.')
		if d <= 0 {
			continue
		}
		d = strings.LastIndexByte(host[:d], '.') + 1
		p, ok := rpcHosts[host[d:]]
		if !ok || p.host != "" && host != p.host {
			continue
		}
		if i < len(text) && text[i] == ':' { // a port
			for i++; i < len(text) && text[i] >= '0' && text[i] <= '9'; i++ {
			}
		}
		j := i
		rest := text[j:]
		switch {
		case p.prefix == "/*/":
			// A chain's name, then the key.
			if !strings.HasPrefix(rest, "/") {
				continue
			}
			c := strings.IndexByte(rest[1:], '/')
			if c <= 0 {
				continue
			}
			j += c + 2
		case strings.HasPrefix(rest, p.prefix):
			j += len(p.prefix)
		default:
			continue
		}
		e := j
		for e < len(text) && urlSafeByte(text[e]) {
			e++
		}
		if v := text[j:e]; p.key(v) && distinctBytes(v) >= 8 && !isPlaceholder(v) {
			out = append(out, foundAt(text, j, e))
		}
	}
	return out
}

// findDeviceCredentials finds, on a line whose keyword woke it, the
// credentials devices and their networks are configured with, and the
// auth secrets named by their use.
func findDeviceCredentials(text string) []found {
	var out []found
	if containsFold(text, "mmunity") || containsFold(text, "m2sec") {
		out = append(out, findCommunities(text)...)
	}
	if containsFold(text, "snmp") && strings.Contains(text, " -c") {
		out = append(out, findSNMPCommand(text)...)
	}
	if containsFold(text, "otp") {
		out = append(out, findOTPCalls(text)...)
	}
	if containsFold(text, "seed") {
		out = append(out, findSeeds(text)...)
	}
	if containsFold(text, "cklog") {
		out = append(out, findBacklog(text)...)
	}
	if containsFold(text, "sekey") {
		out = append(out, findLicenseKeyLine(text)...)
	}
	if containsFold(text, "transactionkey") || containsFold(text, "transaction_key") {
		out = append(out, findTransactionKeys(text)...)
	}
	if containsFold(text, "basic_authorization") {
		out = append(out, findBasicAuthorization(text)...)
	}
	if containsFold(text, "erdp") {
		out = append(out, findFreeRDP(text)...)
	}
	if containsFold(text, "phrase") || containsFold(text, "mnemonic") {
		out = append(out, findMnemonicCalls(text)...)
	}
	if containsFold(text, "symmetrickey(") {
		out = append(out, findSymmetricKeys(text)...)
	}
	return out
}

// defaultCommunity reports whether v is net-snmp's documented default
// community, public or private, which every install answers to.
func defaultCommunity(v string) bool {
	return strings.EqualFold(v, "public") || strings.EqualFold(v, "private")
}

// findCommunities finds an SNMP community: snmpd.conf's rocommunity,
// rwcommunity and com2sec lines, and a value assigned to a name ending in
// community (Telegraf's community = "...", SNMP_COMMUNITY=...) that names
// SNMP or is generated.
func findCommunities(text string) []found {
	ws := shellWords(text)
	if len(ws) >= 2 {
		first := strings.ToLower(ws[0].text)
		switch first {
		case "rocommunity", "rwcommunity", "rocommunity6", "rwcommunity6", "trapcommunity":
			if communityValue(ws[1].text) {
				return []found{foundAt(text, ws[1].start, ws[1].end)}
			}
			return nil
		case "com2sec", "com2sec6":
			// com2sec [-Cn CONTEXT] NAME SOURCE COMMUNITY
			rest := ws[1:]
			if len(rest) >= 2 && rest[0].text == "-Cn" {
				rest = rest[2:]
			}
			if len(rest) >= 3 && communityValue(rest[2].text) {
				return []found{foundAt(text, rest[2].start, rest[2].end)}
			}
			return nil
		}
	}
	var out []found
	lt := strings.ToLower(text)
	for k := range places(lt, "community") {
		e := k + len("community")
		if e < len(text) && (text[e] == '_' || letter(text[e])) {
			if !strings.HasPrefix(lt[e:], "_string") && !strings.HasPrefix(lt[e:], "string") {
				continue
			}
			e += strings.Index(lt[e:], "string") + len("string")
		}
		s := k
		for s > 0 && (wordByte(text[s-1]) || text[s-1] == '.' || text[s-1] == '-') {
			s--
		}
		i := e
		if i < len(text) && (text[i] == '"' || text[i] == '\'') {
			i++
		}
		i = skipSpace(text, i)
		if i >= len(text) || text[i] != '=' && text[i] != ':' || strings.HasPrefix(text[i:], "==") {
			continue
		}
		vs, ve, ok := valueAt(text, skipSpace(text, i+1))
		if !ok {
			continue
		}
		v := text[vs:ve]
		snmp := containsFold(text[s:e], "snmp") || tokenLike(v) || mixedAlnum(v)
		if snmp && communityValue(v) {
			out = append(out, foundAt(text, vs, ve))
		}
	}
	return out
}

// communityValue reports whether v is a community string rather than a
// default, a reference or a word of prose.
func communityValue(v string) bool {
	return !defaultCommunity(v) && !strings.Contains(v, "://") && !strings.ContainsAny(v, " \t/") && literal(v)
}

// findSNMPCommand finds the community net-snmp's commands take after -c
// (snmpwalk -v2c -c COMMUNITY host).
func findSNMPCommand(text string) []found {
	ws := shellWords(text)
	for k, w := range ws {
		name := strings.ToLower(w.text[strings.LastIndexByte(w.text, '/')+1:])
		if !strings.HasPrefix(name, "snmp") || name == "snmp-server" {
			continue
		}
		for j := k + 1; j+1 < len(ws); j++ {
			switch ws[j].text {
			case "|", ";", "&&", "||":
				return nil
			case "-c":
				if v := ws[j+1]; communityValue(v.text) {
					return []found{foundAt(text, v.start, v.end)}
				}
				return nil
			}
		}
	}
	return nil
}

// otpSeed reports whether v is a TOTP or HOTP seed: base32 (A-Z, 2-7, maybe
// padded) of 16 or more characters mixing letters and digits. Allowed:
// the RFC 4226 and 6238 test seeds (base32 of ASCII digits) and the
// authenticator documentation's JBSWY3DPEHPK3PXP.
func otpSeed(v string) bool {
	b := strings.TrimRight(v, "=")
	if len(b) < 16 || len(b) > 128 || b == "JBSWY3DPEHPK3PXP" {
		return false
	}
	digits := 0
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case c >= '2' && c <= '7':
			digits++
		case c >= 'A' && c <= 'Z':
		default:
			return false
		}
	}
	if digits < 2 || digits == len(b) || distinctBytes(b) < 8 || isPlaceholder(v) {
		return false
	}
	if d, err := base32.StdEncoding.WithPadding(base32.NoPadding).DecodeString(b); err == nil && strings.Trim(string(d), "0123456789") == "" {
		return false // RFC 6238's 12345678901234567890
	}
	return true
}

// findOTPCalls finds a seed given as a literal to a TOTP or HOTP call:
// pyotp.TOTP("..."), totp.GenerateCode("...", t), new TOTP(key: "...").
func findOTPCalls(text string) []found {
	var out []found
	lt := strings.ToLower(text)
	for _, w := range []string{"totp", "hotp"} {
		for k := range places(lt, w) {
			o := strings.IndexByte(text[k:], '(')
			if o < 0 || o > 24 {
				continue
			}
			i := skipSpace(text, k+o+1)
			// A label: secret=, key:, s=.
			if j := i; j < len(text) && letter(text[j]) {
				for j < len(text) && wordByte(text[j]) {
					j++
				}
				if j < len(text) && (text[j] == '=' || text[j] == ':') {
					i = skipSpace(text, j+1)
				}
			}
			if e, v, ok := quotedAt(text, i); ok && otpSeed(v) && !overlaps(out, i+1, e) {
				out = append(out, foundAt(text, i+1, e))
			}
		}
	}
	return out
}

// findSeeds finds a TOTP seed under a name ending in seed (otp_seed,
// TOTP_SEED, seed: in an otp block): a base32 value only, which a
// random generator's seed (a number) is not.
func findSeeds(text string) []found {
	var out []found
	lt := strings.ToLower(text)
	for k := range places(lt, "seed") {
		e := k + len("seed")
		if e < len(text) && wordByte(text[e]) {
			continue
		}
		i := e
		if i < len(text) && (text[i] == '"' || text[i] == '\'') {
			i++
		}
		i = skipSpace(text, i)
		if i >= len(text) || text[i] != '=' && text[i] != ':' || strings.HasPrefix(text[i:], "==") {
			continue
		}
		if vs, ve, ok := valueAt(text, skipSpace(text, i+1)); ok && otpSeed(text[vs:ve]) {
			out = append(out, foundAt(text, vs, ve))
		}
	}
	return out
}

// findBacklog finds the passwords of a Tasmota Backlog command, its
// commands separated by ';': Password1 ...; MqttPassword ...; WebPassword ...
func findBacklog(text string) []found {
	i := indexFold(text, "backlog")
	if i < 0 || i+len("backlog") >= len(text) || !reBlank(text[i+len("backlog")]) {
		return nil
	}
	var out []found
	s := i + len("backlog")
	for s < len(text) {
		e := strings.IndexByte(text[s:], ';')
		if e < 0 {
			e = len(text)
		} else {
			e += s
		}
		cmd := skipSpace(text, s)
		n := cmd
		for n < e && wordByte(text[n]) {
			n++
		}
		name := strings.ToLower(strings.TrimRight(text[cmd:n], "0123456789"))
		if name == "password" || name == "mqttpassword" || name == "webpassword" || name == "appassword" {
			v := strings.TrimSpace(text[n:e])
			if vs := strings.Index(text[n:e], v); v != "" && vs >= 0 && literal(v) && !strings.ContainsAny(v, " \t") {
				out = append(out, foundAt(text, n+vs, n+vs+len(v)))
			}
		}
		s = e + 1
	}
	return out
}

// findLicenseKeyLine finds MaxMind's GeoIP.conf line LicenseKey VALUE, a
// generated value of letters and digits.
func findLicenseKeyLine(text string) []found {
	ws := shellWords(text)
	if len(ws) != 2 || !strings.EqualFold(ws[0].text, "licensekey") {
		return nil
	}
	if v := ws[1].text; len(v) >= 12 && mixedAlnum(v) && literal(v) {
		return []found{foundAt(text, ws[1].start, ws[1].end)}
	}
	return nil
}

// findTransactionKeys finds Authorize.Net's transaction key assigned to a
// name ending in transaction key: 16 letters and digits, shorter than the
// generated keys other key names must hold.
func findTransactionKeys(text string) []found {
	var out []found
	lt := strings.ToLower(text)
	for _, w := range []string{"transactionkey", "transaction_key"} {
		for k := range places(lt, w) {
			e := k + len(w)
			if e < len(text) && wordByte(text[e]) {
				continue
			}
			i := e
			if i < len(text) && (text[i] == '"' || text[i] == '\'') {
				i++
			}
			i = skipSpace(text, i)
			if i >= len(text) || text[i] != '=' && text[i] != ':' || strings.HasPrefix(text[i:], "==") {
				continue
			}
			if vs, ve, ok := valueAt(text, skipSpace(text, i+1)); ok {
				if v := text[vs:ve]; len(v) >= 12 && mixedAlnum(v) && allBytes(v, alnumByte) && literal(v) {
					out = append(out, foundAt(text, vs, ve))
				}
			}
		}
	}
	return out
}

// findBasicAuthorization finds base64 of user:password given to a
// basic_authorization (fastlane match's git_basic_authorization("...")).
func findBasicAuthorization(text string) []found {
	i := indexFold(text, "basic_authorization")
	if i < 0 {
		return nil
	}
	q := strings.IndexAny(text[i:], `"'`)
	if q < 0 {
		return nil
	}
	e, v, ok := quotedAt(text, i+q)
	if !ok {
		return nil
	}
	d, err := base64.StdEncoding.DecodeString(v)
	if err != nil {
		return nil
	}
	user, pw, ok := strings.Cut(string(d), ":")
	if !ok || user == "" || len(pw) < 4 || strings.ContainsAny(string(d), " \t\n") || !literal(pw) {
		return nil
	}
	return []found{{Secret: Secret{Rule: RuleSecretBasicAuth, What: "Basic-auth credentials", Masked: mask(v)}, start: i + q + 1, end: e}}
}

// findFreeRDP finds the password FreeRDP's clients take as /p:PW or
// /password:PW.
func findFreeRDP(text string) []found {
	for _, w := range shellWords(text) {
		for _, f := range []string{"/p:", "/password:"} {
			if v, ok := strings.CutPrefix(w.text, f); ok && literal(v) {
				return []found{{Secret: Secret{Masked: mask(v)}, start: w.end - len(v) - quoteLen(text, w), end: w.end - quoteLen(text, w)}}
			}
		}
	}
	return nil
}

// quoteLen is 1 when a shell word ends with a quote, which its text
// drops.
func quoteLen(text string, w shellWord) int {
	if c := text[w.end-1]; c == '"' || c == '\'' {
		return 1
	}
	return 0
}

// codesFileName reports whether a file's name may be recoveryCodesFile's,
// by its end alone: .txt, or codes with no extension.
func codesFileName(name string) bool {
	return strings.HasSuffix(name, ".txt") || strings.HasSuffix(name, "codes") || strings.HasSuffix(name, "Codes")
}

// recoveryCodesFile reports whether a file's name says it holds an
// account's recovery or backup codes (github-recovery-codes.txt).
func recoveryCodesFile(name string) bool {
	if !strings.Contains(name, "codes") && !strings.Contains(name, "Codes") {
		return false
	}
	base := strings.ToLower(path.Base(name))
	if ext := path.Ext(base); ext != ".txt" && ext != "" {
		return false
	}
	base = strings.NewReplacer("-", "", "_", "", " ", "").Replace(base)
	return strings.Contains(base, "recoverycodes") || strings.Contains(base, "backupcodes")
}

// codeShaped reports whether a line is letters, digits and '-' alone but
// blanks around them, as a recovery code is: a test of bytes that most
// lines fail at once, made before a file's name is.
func codeShaped(text string) bool {
	i := 0
	for i < len(text) && (text[i] == ' ' || text[i] == '\t') {
		i++
	}
	e := len(text)
	for e > i && (text[e-1] == ' ' || text[e-1] == '\t' || text[e-1] == '\r') {
		e--
	}
	if e-i < 8 {
		return false
	}
	for ; i < e; i++ {
		if !alnumByte(text[i]) && text[i] != '-' {
			return false
		}
	}
	return true
}

// recoveryCode reports whether v is a recovery code's shape: 8 to 24
// letters and digits, maybe in groups joined by '-', with both.
func recoveryCode(v string) bool {
	if len(v) < 8 || len(v) > 24 || v[0] == '-' || v[len(v)-1] == '-' {
		return false
	}
	for i := 0; i < len(v); i++ {
		if !alnumByte(v[i]) && v[i] != '-' {
			return false
		}
	}
	return mixedAlnum(v) && !isPlaceholder(v)
}

// findOpened finds, on a line after one that opens a call, a list or a
// map, or names a list of codes, the value the opening makes a secret:
// a call's argument (securecookie.New(⏎[]byte("...")), a wallet call's
// key or mnemonic, the second argument when the first is on the line
// before, a credential map's first value (apiKey: {⏎mainnet: "..."), a
// signer's list's first key, the first of a list of recovery codes.
// derived asks it when the line before ends with ( , [ { or :.
func (f *scanFile) findOpened(text string, last byte) []found {
	if last == '{' {
		return openedMap(f.prev, text)
	}
	if last != ':' && strings.IndexAny(text, `"'`) < 0 {
		return nil
	}
	switch last {
	case '(':
		if openingCall(f.prev) {
			return openedCall(f.prev, text)
		}
	case ',':
		if lastByte(f.prev2) == '(' && lone(f.prev) && openingCall(f.prev2) {
			return openedCall(f.prev2+f.prev, text)
		}
	case '[':
		return openedList(f.prev, text)
	case ':':
		t := f.prev[:lastAt(f.prev)]
		if len(t) > 0 && (t[len(t)-1] == '"' || t[len(t)-1] == '\'') {
			t = t[:len(t)-1]
		}
		if len(t) >= 5 && strings.EqualFold(t[len(t)-5:], "codes") {
			return openedCodes(f.prev, text)
		}
	}
	return nil
}

// openingCall reports whether a line ends by opening a call that takes a
// secret by position or makes a wallet: securecookie.New(, LiveEnvironment(,
// Wallet.fromPhrase(, HexToECDSA(.
func openingCall(line string) bool {
	t := strings.TrimRight(line, " \t\r")
	callee := calleeBefore(t, len(t))
	if len(callee) < 3 {
		return false
	}
	for _, w := range []string{"wallet", "phrase", "mnemonic", "key", "ecdsa", "account"} {
		if containsFold(callee, w) {
			return true
		}
	}
	callee = strings.ReplaceAll(strings.ToLower(callee), "::", ".")
	for _, pc := range positionalCalls {
		if pc.how == argAt && calleeIs(callee, pc.callee) {
			return true
		}
	}
	return false
}

// openingEnds are the last bytes of a line opening might not return 0
// for: a table, since derived asks it of every line.
var openingEnds = func() (t [256]bool) {
	for _, c := range "(,[:{ \t\r" {
		t[c] = true
	}
	return t
}()

// opening returns the byte a line ends with when it may open what
// findOpened reads on the next line, or 0: '(' ',' '[' or ':', and '{'
// after '=' or ':' (a map assigned to a name, which few statements that
// open a block are). A test of its last bytes, made for every line.
func opening(prev string) byte {
	n := len(prev)
	if n < 2 {
		return 0
	}
	switch c := prev[n-1]; c {
	case '(', ',', '[', ':':
		return c
	case '{':
		b := prev[n-2]
		if b == ' ' && n >= 3 {
			b = prev[n-3]
		}
		if b == ':' || b == '=' {
			return c
		}
	case ' ', '\t', '\r':
		if c = lastByte(prev); c != '{' && c != 0 {
			return opening(prev[:lastAt(prev)+1])
		}
	}
	return 0
}

// lastByte returns the last byte of s but blanks, or 0.
func lastByte(s string) byte {
	if e := lastAt(s); e >= 0 {
		return s[e]
	}
	return 0
}

// lastAt returns the index of the last byte of s but blanks, or -1.
func lastAt(s string) int {
	e := len(s) - 1
	for e >= 0 && (s[e] == ' ' || s[e] == '\t' || s[e] == '\r') {
		e--
	}
	return e
}

// lone reports whether a line is one literal and a comma: a call's
// argument on its own line.
func lone(line string) bool {
	t := strings.TrimSpace(line)
	t = strings.TrimSuffix(t, ",")
	if len(t) < 2 || (t[0] != '"' && t[0] != '\'') {
		return false
	}
	e, _, ok := quotedAt(t, 0)
	return ok && e == len(t)-1
}

// openedCall reads the call that before opens with this line's text as
// its arguments, and returns what the positional and wallet readings
// find on this line.
func openedCall(before, text string) []found {
	joined := before + text
	off := len(before)
	var out []found
	fs := append(findPositional(joined), findWalletKeys(joined)...)
	for _, f := range append(fs, findMnemonicCalls(joined)...) {
		if f.start < off {
			continue
		}
		f.start -= off
		f.end -= off
		if f.Rule == "" {
			f.Rule, f.What = RuleSecretAssignment, "literal credential given to an API that takes one"
		}
		if f.Rule == RuleSecretPrivateKey && f.What == "" {
			f.What = "private key (wallet)"
		}
		if !overlaps(out, f.start, f.end) {
			out = append(out, f)
		}
	}
	return out
}

// openedMap finds the first value of a map opened after a credential's
// name (apiKey: {, "api_keys": {): generated, under whatever name the
// network or the environment gives it.
func openedMap(before, text string) []found {
	// The line's shape first, name: "value", which few lines after a '{'
	// have (statements do).
	k := skipSpace(text, 0)
	if k < len(text) && (text[k] == '"' || text[k] == '\'') {
		k++
	}
	for k < len(text) && (wordByte(text[k]) || text[k] == '-') {
		k++
	}
	if k < len(text) && (text[k] == '"' || text[k] == '\'') {
		k++
	}
	if k = skipSpace(text, k); k >= len(text) || text[k] != ':' && text[k] != '=' {
		return nil
	}
	t := strings.TrimRight(strings.TrimRight(before, " \t"), "{")
	t = strings.TrimRight(t, " \t")
	t = strings.TrimRight(strings.TrimRight(t, "=:"), " \t")
	t = strings.Trim(t, `"'`)
	name := t[strings.LastIndexFunc(t, func(r rune) bool { return r > 0x7f || !wordByte(byte(r)) && r != '-' })+1:]
	if name == "" || !credentialName(name) {
		return nil // a key of a cache or a map: cacheKey: {
	}
	i := skipSpace(text, 0)
	j := i
	if j < len(text) && (text[j] == '"' || text[j] == '\'') {
		j++
	}
	for j < len(text) && (wordByte(text[j]) || text[j] == '-') {
		j++
	}
	if j == i {
		return nil
	}
	if j < len(text) && (text[j] == '"' || text[j] == '\'') {
		j++
	}
	j = skipSpace(text, j)
	if j >= len(text) || text[j] != ':' && text[j] != '=' {
		return nil
	}
	vs, ve, ok := valueAt(text, skipSpace(text, j+1))
	if !ok || vs == 0 || text[vs-1] != '"' && text[vs-1] != '\'' {
		return nil
	}
	if v := text[vs:ve]; secretLiteral(v) && generatedSecret(v) && !isUUID(v) {
		return []found{{Secret: Secret{Rule: RuleSecretAssignment, What: "literal credential", Masked: mask(v)}, start: vs, end: ve}}
	}
	return nil
}

// openedList finds the first key of a signer's list opened on the line
// before (accounts: [, privateKeys: [).
func openedList(before, text string) []found {
	i := skipSpace(text, 0)
	if e, v, ok := quotedAt(text, i); ok {
		h := strings.TrimPrefix(strings.TrimPrefix(v, "0x"), "0X")
		if len(h) == 64 && hexOnly(h) {
			if f, ok := walletHex(before+text, len(before)+e-64, len(before)+e); ok {
				f.start -= len(before)
				f.end -= len(before)
				f.What = "private key (wallet)"
				return []found{f}
			}
		}
	}
	return nil
}

// openedCodes finds the first of a list of recovery or backup codes under
// a name that says so (backup_codes:⏎- ...).
func openedCodes(before, text string) []found {
	n := strings.ToLower(strings.TrimRight(strings.TrimSpace(before), ":"))
	n = strings.Trim(n, `"'`)
	n = strings.NewReplacer("-", "", "_", "").Replace(n)
	if !strings.HasSuffix(n, "recoverycodes") && !strings.HasSuffix(n, "backupcodes") {
		return nil
	}
	t := strings.TrimSpace(text)
	t, ok := strings.CutPrefix(t, "- ")
	if !ok {
		return nil
	}
	v := strings.Trim(strings.TrimSpace(t), `"'`)
	if s := strings.Index(text, v); s >= 0 && recoveryCode(v) {
		return []found{{Secret: Secret{Rule: RuleSecretAssignment, What: "recovery code", Masked: mask(v)}, start: s, end: s + len(v)}}
	}
	return nil
}

// findFirstLine finds what a file that holds one secret holds, at its
// first line (derived asks it of line 1 only: the file as it is written):
// a recovery code in a recovery-codes file, a mnemonic in a file named
// for a secret or a seed (truffle's .secret, mnemonic.txt, seed.txt).
func (f *scanFile) findFirstLine(text string) []found {
	if codesFileName(f.path) && codeShaped(text) && recoveryCodesFile(f.path) {
		return findRecoveryCode(text)
	}
	if len(text) < 47 || strings.Count(text, " ") < 11 {
		return nil // 12 words of 3 letters or more
	}
	base := strings.ToLower(path.Base(f.path))
	if !strings.Contains(base, "secret") && !strings.Contains(base, "mnemonic") && !strings.Contains(base, "seed") && !strings.Contains(base, "phrase") {
		return nil
	}
	v := strings.TrimSpace(text)
	if s := strings.Index(text, v); s >= 0 && mnemonicWords(v) {
		return []found{{Secret: Secret{Rule: RuleSecretAssignment, What: "wallet mnemonic", Masked: mask(v)}, start: s, end: s + len(v)}}
	}
	return nil
}

// findRecoveryCode finds a recovery-codes file's first line when it is a
// code.
func findRecoveryCode(text string) []found {
	v := strings.TrimSpace(text)
	if s := strings.Index(text, v); s >= 0 && recoveryCode(v) {
		return []found{{Secret: Secret{Rule: RuleSecretAssignment, What: "recovery code", Masked: mask(v)}, start: s, end: s + len(v)}}
	}
	return nil
}

// subscriptRef reports whether v is a lookup in code rather than a
// literal: a name and a quoted key in brackets (keystoreProperties['keyPassword'],
// ENV["X"]).
func subscriptRef(v string) bool {
	i := 0
	for i < len(v) && (wordByte(v[i]) || v[i] == '.') {
		i++
	}
	return i > 0 && i+2 < len(v) && v[i] == '[' && (v[i+1] == '\'' || v[i+1] == '"') && v[len(v)-1] == ']'
}
