package guardrail

import (
	"strings"
	"testing"
)

// domainFinders are secrets_domains.go's one-line finders, by name, so
// the file finders' fuzz test runs them too; "opened" reads a line up to
// its first newline as the line before, the rest as the line.
var domainFinders = map[string]func(string) []found{
	"wallet":   findWalletKeys,
	"rpc":      findRPCKeys,
	"device":   findDeviceCredentials,
	"recovery": findRecoveryCode,
	"opened": func(t string) []found {
		before, line, _ := strings.Cut(t, "\n")
		f := &scanFile{prev: before}
		if b, l, ok := strings.Cut(line, "\n"); ok {
			f.prev2, f.prev, line = before, b, l
		}
		last := lastByte(f.prev)
		if last == 0 {
			return nil
		}
		off := len(t) - len(line)
		var out []found
		for _, x := range f.findOpened(line, last) {
			x.start, x.end = x.start+off, x.end+off
			out = append(out, x)
		}
		return out
	},
}

func init() { addFinders("domain-", domainFinders) }

// TestDomainFinders checks the bytes each of secrets_domains.go's
// finders takes, and that it takes nothing of the look-alikes beside
// them: hashes, slots, topics, addresses and published test keys beside
// wallet keys; public RPC URLs and ${VAR} keys; default communities;
// test vectors beside TOTP seeds.
func TestDomainFinders(t *testing.T) {
	const (
		hex1  = "7eeb8a1ec9332a30a983694d1b428f3e50e86c2c5f2ca9635310f88053fc3fcd"
		hex2  = "ceab11b9d49fc08fbf54a2989d5e52e2a3c6439edc106b45dfb81df82a180422"
		hex32 = "5f969f1a6e7c618c8fc9d640075fcc2e"
		tok   = "EwaVrmJAF1CXISADWcGNkO7rsVT7zvwX"
		b58   = "vMBCs5tMdwPQ9CUVQwyrsfuK8tY4fyaX9MnqjrVtXhPQEZW1kqAkpYAzFG5oudLYcjMrhejZ5Joio7pLkD6Rjd12"
		seed  = "5422CT6LHLT7YLTCZ4JLJJAA37FLLY5G"
		bytes = "[173,8,188,138,62,89,170,47,216,64,39,66,116,182,155,109,47,61,28,21,214,191,204,68,11,68,33,96,139,8,225,148,124,26,182,116,157,194,175,75,228,191,141,217,125,191,232,1,79,81,10,127,209,184,230,53,6,178,6,97,185,124,219,162]"
		words = "bright cabin amused across blame bundle asthma agent border bubble arctic album"
		pw    = "Rk7#vQ2m-Lp9xW"
		anvil = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80"
	)
	checkFinders(t, domainFinders, []finderCase{
		// Wallet keys by their owner's name or call.
		{"wallet", "DEPLOYER_KEY=" + hex1, []string{hex1}},
		{"wallet", `  signerPrivateKey: "0x` + hex1 + `",`, []string{"0x" + hex1}},
		{"wallet", "        uint256 deployerKey = 0x" + hex1 + ";", []string{"0x" + hex1}},
		{"wallet", `const w = new ethers.Wallet("0x` + hex1 + `", provider);`, []string{"0x" + hex1}},
		{"wallet", `acct = Account.from_key("` + hex1 + `")`, []string{hex1}},
		{"wallet", `key, err := crypto.HexToECDSA("` + hex1 + `")`, []string{hex1}},
		{"wallet", `    owner = accounts.add("0x` + hex1 + `")`, []string{"0x" + hex1}},
		{"wallet", `const s = new Wallet(process.env.RELAYER_KEY ?? "0x` + hex1 + `");`, []string{"0x" + hex1}},
		{"wallet", `let wallet: LocalWallet = "` + hex1 + `".parse()?;`, []string{hex1}},
		{"wallet", `      accounts: ["` + hex1 + `", "` + hex2 + `"],`, []string{hex1}},
		{"wallet", `privateKeys: ['0x` + hex1 + `'],`, []string{"0x" + hex1}},
		{"wallet", `const account = privateKeyToAccount("0x` + hex1 + `");`, []string{"0x" + hex1}},
		// Hashes, slots, addresses and published keys beside them.
		{"wallet", `const txHash = "0x` + hex1 + `";`, nil},
		{"wallet", `bytes32 constant ADMIN_SLOT = 0x` + hex1 + `;`, nil},
		{"wallet", `  "storageKeys": ["0x` + hex1 + `"]`, nil},
		{"wallet", `{"SecretKey":"0102030405060708091011121314151617181920212223242526272829303132"}`, nil}, // digits alone: a counted pattern
		{"wallet", `  "key": "0x` + hex1 + `",`, nil},
		{"wallet", `cacheKey = "` + hex1 + `"`, nil},
		{"wallet", `PUBLIC_KEY=0x04` + hex1 + hex2, nil},
		{"wallet", `export const ANVIL_KEY_0 = "` + anvil + `";`, nil},
		{"wallet", `const testPrivateKey = "0x` + hex1 + `";`, nil},
		{"wallet", `KEY_ID=` + hex1, nil},
		{"wallet", `const objectKey = "` + hex1 + `";`, nil},
		{"wallet", `ENCRYPTION_KEY=` + hex1, []string{hex1}},
		{"wallet", `WALLET_KEY=0x` + strings.Repeat("0", 62) + "03", nil},
		{"wallet", `SIGNER_KEY=0x` + hex1 + `ab`, nil}, // 66 digits: not a key's length
		// Solana keys beside a keypair's name.
		{"wallet", `const payer = Keypair.fromSecretKey(Uint8Array.from(` + bytes + `));`, []string{bytes}},
		{"wallet", `    Keypair::from_base58_string("` + b58 + `")`, []string{b58}},
		{"wallet", `const data = new Uint8Array(` + bytes + `);`, nil},
		{"wallet", `sig = "` + b58 + `"  # the airdrop's key transaction`, nil},
		// Mnemonics given to a call named for one.
		{"device", `export const w = Wallet.fromPhrase("` + words + `");`, []string{words}},
		{"device", `seed = Mnemonic.to_seed("` + words + `")`, []string{words}},
		{"device", `const m = HDNodeWallet.fromPhrase("test test test test test test test test test test test junk");`, nil},
		{"device", `const phrase = ask("` + words + `");`, nil},
		// Lists of keys or secrets, CryptoKit's SymmetricKey.
		{"wallet", `app.keys = ['` + tok + `', '` + tok[1:] + `1'];`, []string{tok, tok[1:] + "1"}},
		{"wallet", `COOKIE_SECRETS: ["` + tok + `"]`, []string{tok}},
		{"wallet", `sortKeys = ['createdAt', 'updatedAt']`, nil},
		{"wallet", `publicKeys: ["` + tok + `"]`, nil},
		{"device", `let key = SymmetricKey(data: Data("` + tok + `".utf8))`, []string{tok}},
		{"device", `let key = SymmetricKey(size: .bits256)`, nil},
		// Keys in node providers' URLs.
		{"rpc", "MAINNET_RPC_URL=https://mainnet.infura.io/v3/" + hex32, []string{hex32}},
		{"rpc", `url: "https://eth-mainnet.g.alchemy.com/v2/` + tok + `",`, []string{tok}},
		{"rpc", "rpc: https://dawn-silent-meadow.quiknode.pro/" + hex1[:40] + "/", []string{hex1[:40]}},
		{"rpc", `RPC = "https://rpc.ankr.com/polygon/` + hex1 + `"`, []string{hex1}},
		{"rpc", "https://nd-123-456-789.p2pify.com/" + hex32, []string{hex32}},
		{"rpc", "url: `https://mainnet.infura.io/v3/${INFURA_API_KEY}`", nil},
		{"rpc", "RPC_URL=https://sepolia.infura.io/v3/<project-id>", nil},
		{"rpc", "rpc: https://rpc.ankr.com/eth", nil},
		{"rpc", "see https://docs.alchemy.com/v2/reference for the API", nil},
		// SNMP communities.
		{"device", "rocommunity " + tok[:14] + " 10.20.0.0/16", []string{tok[:14]}},
		{"device", "com2sec readonly default " + tok[:14], []string{tok[:14]}},
		{"device", `  community = "` + tok[:14] + `"`, []string{tok[:14]}},
		{"device", `SNMP_COMMUNITY=monitoring`, []string{"monitoring"}},
		{"device", `snmpwalk -v2c -c ` + tok[:14] + ` 10.0.0.1 IF-MIB::ifDescr`, []string{tok[:14]}},
		{"device", "rocommunity public localhost", nil},
		{"device", `snmpwalk -v2c -c public localhost`, nil},
		{"device", `  community: "https://community.acme.dev"`, nil},
		{"device", `  community: discord`, nil},
		{"device", `SNMP_COMMUNITY=${SNMP_COMMUNITY}`, nil},
		// TOTP seeds.
		{"device", `    return pyotp.TOTP("` + seed + `").now()`, []string{seed}},
		{"device", `code, _ := totp.GenerateCode("` + seed + `", time.Now())`, []string{seed}},
		{"device", `  seed: ` + seed, []string{seed}},
		{"device", `OTP_SEED="` + seed + `"`, []string{seed}},
		{"device", `RFC6238_SEED = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"`, nil},
		{"device", `t = pyotp.TOTP("JBSWY3DPEHPK3PXP")`, nil},
		{"device", `  seed: 42`, nil},
		{"device", `random_seed = "PRODUCTIONRUNABC"`, nil},
		{"device", `t = pyotp.TOTP(pyotp.random_base32())`, nil},
		// Tasmota, MaxMind, Authorize.Net, match, FreeRDP.
		{"device", "Backlog SSID1 Keller; Password1 " + pw + "; MqttPassword " + tok[:12], []string{pw, tok[:12]}},
		{"device", "Backlog SSID1 Keller; Password1 ; MqttHost mqtt.local", nil},
		{"device", "LicenseKey " + tok[:16] + "_mmk", []string{tok[:16] + "_mmk"}},
		{"device", "LicenseKey YOUR_LICENSE_KEY_HERE", nil},
		{"device", "AUTHNET_TRANSACTION_KEY=" + tok[:16], []string{tok[:16]}},
		{"device", "transactionKey: process.env.AUTHNET_TRANSACTION_KEY,", nil},
		{"device", `git_basic_authorization("Y2ktYm90Om1pMlllOXhUYk02TnNRVVNiRG5v")`, []string{"Y2ktYm90Om1pMlllOXhUYk02TnNRVVNiRG5v"}},
		{"device", `git_basic_authorization(Base64.strict_encode64("ci:#{ENV['MATCH_TOKEN']}"))`, nil},
		{"device", "xfreerdp /v:host /u:admin /p:'" + pw + "' /cert:ignore", []string{pw}},
		{"device", `xfreerdp /v:host /u:admin /p:"$RDP_PASSWORD"`, nil},
		// Recovery codes.
		{"recovery", "a1b2c-d3e4f", []string{"a1b2c-d3e4f"}},
		{"recovery", "# keep these safe", nil},
		// Values on the line after the one that opens them.
		{"opened", "var store = securecookie.New(\n\t[]byte(\"" + tok + "\"),", []string{tok}},
		{"opened", "const env = new paypal.core.LiveEnvironment(\n  \"A" + tok + "\",\n  \"E" + tok + "\"", []string{"E" + tok}},
		{"opened", "export const w = Wallet.fromPhrase(\n  \"" + words + "\"", []string{words}},
		{"opened", "    apiKey: {\n      mainnet: \"" + strings.ToUpper(tok) + "\",", []string{strings.ToUpper(tok)}},
		{"opened", "      accounts: [\n        \"0x" + hex1 + "\",", []string{"0x" + hex1}},
		{"opened", "  backup_codes:\n    - " + tok[:10], []string{tok[:10]}},
		{"opened", "var store = securecookie.New(\n\t[]byte(os.Getenv(\"HASH_KEY\")),", nil},
		{"opened", "    apiKey: {\n      mainnet: process.env.ETHERSCAN_KEY,", nil},
		{"opened", "    networks: {\n      mainnet: \"" + tok + "\",", nil},
		{"opened", "    cacheKey: {\n      hash: \"" + hex1 + "\",", nil},
		{"opened", "    apiKey: {\n      id: \"0b9f3c2e-5d1a-4f7b-9e8c-2a6d4b1c7e90\",", nil},
		{"opened", "  backup_codes:\n    - enabled", nil},
		{"opened", "const topics = [\n  \"0x" + hex1 + "\",", nil},
	})
}

// TestDomainScans checks the readings that need a whole file: a
// recovery-codes file by its name, and the values a call or a map opens on
// a line before, through ScanSecrets.
func TestDomainScans(t *testing.T) {
	checkScans(t, []scanCase{
		{"ops/github-recovery-codes.txt", "8f2a1-3c9d0\n71e4b-a05c6\n", true},
		{"ops/backup_codes.txt", "Q7X2M9K4\nR3T8V1W6\n", true},
		{"docs/recovery-codes.md", "Store your recovery codes in a safe place.\n", false},
		{"src/session.go", "var cookies = securecookie.New(\n\t[]byte(\"Hq3Wz8Lr1Vb6Nc9Tx2Pm5Kd7\"),\n\tnil,\n)\n", true},
		{"hardhat.config.js", "etherscan: {\n  apiKey: {\n    mainnet: \"Q4W8E2R6T1Y9U3I7O5P0ASDFGHJKL1ZX\",\n  },\n},\n", true},
		{"app/build.gradle", "release {\n    storePassword keystoreProperties['storePassword']\n    keyPassword 'android'\n}\n", false},
		{"app/build.gradle", "release {\n    storePassword 'Vq3#Lm8Tz1Rw'\n}\n", true},
		{"ios/Info.plist", "<dict>\n\t<key>ShopAPISecret</key>\n\t<string>Hq3Wz8Lr1Vb6Nc9Tx2Pm5Kd7</string>\n</dict>\n", true},
		{"scripts/power.sh", "ipmitool -I lanplus -H bmc01 -U ADMIN -P Vq3Lm8Tz1Rw chassis status\n", true},
		{"scripts/vnc.sh", "x11vnc -display :0 -passwd Vq3Lm8Tz1Rw -forever\n", true},
		{"bridge.py", "client.username_pw_set(\"bridge\", \"Vq3#Lm8Tz1Rw\")\n", true},
		{"door.ino", "  WiFi.begin(\"Lager-Nord\", \"Vq3#Lm8Tz1Rw\");\n", true},
		{"door.ino", "  WiFi.begin(ssid, password);\n", false},
		{"test/fixtures.ts", "  { key: \"0x8f2a1c3b4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f8\", value: \"0x01\" },\n", false},
		{".secret", "bright cabin amused across blame bundle asthma agent border bubble arctic album\n", true},
		{"wallet/mnemonic.txt", "bright cabin amused across blame bundle asthma agent border bubble arctic album\n", true},
		{"notes.txt", "bright cabin amused across blame bundle asthma agent border bubble arctic album\n", false},
		{".secret", "test test test test test test test test test test test junk\n", false},
		{".env", "SEED_PHRASE=bright cabin amused across blame bundle asthma agent border bubble arctic album\n", true},
	})
}
