package guardrail

import (
	"encoding/base64"
	"testing"
)

// outsideFinders are secrets_outside.go's finders, by name.
var outsideFinders = map[string]func(string) []found{
	"tokens":      findOutsideTokens,
	"commands":    findOutsideCommands,
	"vault":       findVaultKeys,
	"truenas":     findTrueNASKey,
	"thingsboard": findThingsBoardToken,
	"yamltag":     findYAMLTagged,
	"groovy":      findGroovyNamedArgs,
	"pem64":       findBase64PEM,
	"ldapbind":    findDirectoryEntry,
}

func init() { addFinders("outside-", outsideFinders) }

// TestOutsideFinders checks the bytes each of secrets_outside.go's
// finders takes, and that it takes nothing of the look-alikes beside
// them. The values are random, of each provider's documented shape.
func TestOutsideFinders(t *testing.T) {
	const (
		odt    = "odt_4N48BnQ9Nxq1s7HJx7vkk80Em0f4Rqqx"
		aio    = "aio_yDDtGjX5XGhGbmutEqh7d5M0owgE"
		twitch = "live_765055515_ZCDkN9RXoZ4VJe1NBvPvebC9SzDDpN"
		nraa   = "NRAA-809cce177af9e74d1ab39cc1648"
		nriq   = "NRIQ-rQNk2Yf3hvtcjfIOVMvspEWvRv0lJrrh"
		eu01   = "eu01xx4f723cdcc80fa0604666d819ac0c56NRAL"
		jina   = "jina_4l2ePpnwPpYJ9VgquzmpbuM5vsXsNZbQCt8g2boClKeQapILeAf4ffLxpBx7"
		mdb    = "mdb_sa_sk_apfrIfatT5LZ4cxmW929vegPBpr58VdupGFr5Gb2"
		phx    = "phx_NmH6VFM4L2cahwfjHaE3SKvXH17YdaKQny6Fia7qtwr"
		sgp    = "sgp_ccf199ca747e2d9e_3421fabdac271596b69aca7e810a8ab4c7e90943"
		slk    = "slk_4304257663265411e2125f92f337e5c8c544ed71430ea76348d7253418f6dfc4"
		tkn    = "tkn.v1_3QfkF6T6KqqVc4cQKf2pCBlA78GLFqN5s7qjFdm+7mFN8sgK6aQmMf0EKEp337ByGpyGstYZBLylD/LL="
		scp    = "scp-live-25d2a26625cfc82b961a44a47c668685"
		azdo   = "mtP0iy3LVKe2wXzGWFowp38lRg7e3rfMYywt89enRKhVx99mPhn2JQQJ99441Rx0HkloWoCQ2bPUAZDOd8yf"
		sf     = "00DcMvXEHAnn0H7!m6pNyN5bPe6JODs3JSSJJEU8E03wapvatzOio6yIBwUIgBu6r8eM4NiCjvP9awTCrUE1CMk8YVUVSrlsfxjQ1xvWg0"
		xoxe   = "xoxe-1-My0xLTYwMDc3NTk2MjgtNzQyNjQyMDkzMDQyMy0yNzEyNTA4OTE4NjY5LTQ4NGE3NmY5ZDBiOGQyYTZkOTY2OTY3Mzk1ZWZiMjJhNzRmNjNkMmFmMGRiNzU4NzlmZjkzMzliZTlkNGRjZjE"
		unseal = "L+2TKUKEy6c06/sK3jdr2JudN1vk4N9A4WHFbcw6fc5O"
		nas    = "36-rMfP4VRFArthVgIAs4nUlzFop9dJUtM98o5NpYx8TVuBhWlaCFUlBsI2hGKbnCIT"
		tb     = "bjytgtyoffuafdrx91s4"
		pw     = "hc2y1dmw%T2o"
		b64    = "Y1puSTJxOXRSNWlNc3MxV05kZjVSWE1M"
	)
	var (
		body     = "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\nQyNTUxOQAAACDq7Xk2vT9mQpL4sN8wRzY1cF6hJ0aKdU3bVgHnE5iOtAAAAJjQ2x5k0Ntt\n"
		pem64    = base64.StdEncoding.EncodeToString([]byte("-----BEGIN OPENSSH PRIVATE KEY-----\n" + body + "-----END OPENSSH PRIVATE KEY-----\n"))
		pub64    = base64.StdEncoding.EncodeToString([]byte("-----BEGIN PUBLIC KEY-----\n" + body + "-----END PUBLIC KEY-----\n"))
		elided64 = base64.StdEncoding.EncodeToString([]byte("-----BEGIN PRIVATE KEY-----\nMIIE...\n-----END PRIVATE KEY-----\n"))
	)
	checkFinders(t, outsideFinders, []finderCase{
		// Providers' prefixes, wherever the token stands.
		{"tokens", `DTRACK_API_KEY=` + odt, []string{odt}},
		{"tokens", `#define AIO_KEY "` + aio + `"`, []string{aio}},
		{"tokens", `stream_key: "` + twitch + `"`, []string{twitch}},
		{"tokens", `  adminKey: ` + nraa, []string{nraa}},
		{"tokens", `{"insights_query_key": "` + nriq + `"}`, []string{nriq}},
		{"tokens", `license_key: ` + eu01, []string{eu01}},
		{"tokens", `client = Jina(api_key="` + jina + `")`, []string{jina}},
		{"tokens", `atlas_client_secret = "` + mdb + `"`, []string{mdb}},
		{"tokens", `POSTHOG_PERSONAL_KEY=` + phx, []string{phx}},
		{"tokens", `src login --token ` + sgp, []string{sgp}},
		{"tokens", `"cody.accessToken": "` + slk + `"`, []string{slk}},
		{"tokens", `Authorization: Bearer ` + tkn, []string{tkn}},
		{"tokens", `ScrapflyClient(key='` + scp + `')`, []string{scp}},
		{"tokens", `AZURE_DEVOPS_EXT_PAT=` + azdo, []string{azdo}},
		{"tokens", `sf_session = "` + sf + `"`, []string{sf}},
		{"tokens", `SLACK_CONFIG_REFRESH_TOKEN=` + xoxe, []string{xoxe}},
		// Look-alikes: placeholders, test keys, words, short or cut tokens.
		{"tokens", `DTRACK_API_KEY=odt_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx`, nil},
		{"tokens", `keepalive_timeout 65; alive_1234567_abc`, nil},
		{"tokens", `stream_key: live_123456789_YOUR_STREAM_KEY_GOES_HEREXX`, nil},
		{"tokens", `sgp_` + "local_only_flag", nil},
		{"tokens", `checksum 00d3f9a2b4c5! done`, nil},
		{"tokens", `odt_4N48BnQ9Nxq1s7HJx7vkk80Em0f4Rq`, nil}, // too short
		{"tokens", `phx_` + "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopq", nil},
		// Passwords on the command lines of tools that take them so.
		{"commands", `psexec \\10.0.4.7 -u CORP\svc-deploy -p ` + pw + ` cmd /c ipconfig`, []string{pw}},
		{"commands", `C:\Tools\PsExec64.exe \\build02 -accepteula -u admin -p "` + pw + `" -i 1 setup.cmd`, []string{pw}},
		{"commands", `Connect-VIServer -Server vcsa.corp.local -User svc@vsphere.local -Password '` + pw + `'`, []string{pw}},
		{"commands", `Invoke-Sqlcmd -ServerInstance db01 -Username sa -password ` + pw + ` -Query "SELECT 1"`, []string{pw}},
		{"commands", `psexec \\host -u admin -p $Password cmd`, nil},
		{"commands", `psexec \\host -u admin -p %ADMIN_PW% cmd`, nil},
		{"commands", `PsExec.exe \\host -u DOMAIN\admin -p PASSWORD cmd`, nil},
		{"commands", `Connect-VIServer -Server $vc -User $user -Password $pass`, nil},
		{"commands", `Connect-VIServer -Server vc01 -Credential (Get-Credential)`, nil},
		{"commands", `psexec \\host -s cmd /c "ping -p 80"`, nil},
		// Vault's unseal keys.
		{"vault", `Unseal Key 1: ` + unseal, []string{unseal}},
		{"vault", `kubectl exec vault-0 -- vault operator unseal ` + unseal, []string{unseal}},
		{"vault", `vault operator unseal $VAULT_UNSEAL_KEY_1`, nil},
		{"vault", `Unseal Key 1: <unseal key 1>`, nil},
		{"vault", `# Unseal Progress: 1/3`, nil},
		// TrueNAS' API key at its login call; ThingsBoard's device token.
		{"truenas", `{"id": "1", "msg": "method", "method": "auth.login_with_api_key", "params": ["` + nas + `"]}`, []string{nas}},
		{"truenas", `{"method": "auth.login_with_api_key", "params": [api_key]}`, nil},
		{"thingsboard", `curl -X POST http://tb.acme.io:8080/api/v1/` + tb + `/telemetry -d '{"t":21}'`, []string{tb}},
		{"thingsboard", `mqtt://demo.thingsboard.io/api/v1/` + tb + `/attributes`, []string{tb}},
		{"thingsboard", `http://localhost:8080/api/v1/$ACCESS_TOKEN/telemetry`, nil},
		{"thingsboard", `http://localhost:8080/api/v1/YOUR_ACCESS_TOKEN/telemetry`, nil},
		{"thingsboard", `http://localhost:8080/api/v1/devices/telemetry`, nil},
		// A YAML value under a tag.
		{"yamltag", `api_secret: !!binary ` + b64, []string{b64}},
		{"yamltag", `  db_password: !!str ` + pw, []string{pw}},
		{"yamltag", `logo_png: !!binary ` + b64, nil},
		{"yamltag", `api_secret: !!str ${API_SECRET}`, nil},
		// Gradle's Groovy calls without parentheses.
		{"groovy", `        buildConfigField 'String', 'MAPS_API_KEY', '"` + jina[5:30] + `"'`, []string{jina[5:30]}},
		{"groovy", `buildConfigField "String" , "STRIPE_SECRET" , "\"` + pw + `\""`, []string{pw}},
		{"groovy", `resValue 'string', 'google_api_key', '"` + jina[20:50] + `"'`, []string{jina[20:50]}},
		{"groovy", `buildConfigField 'String', 'API_KEY', '"${apiKey}"'`, nil},
		{"groovy", `buildConfigField "String", "API_KEY", "\"" + localProps['apiKey'] + "\""`, nil},
		{"groovy", `buildConfigField 'String', 'BASE_URL', '"https://api.acme.io/v2"'`, nil},
		{"groovy", `resValue 'string', 'app_name', '"Acme Shop"'`, nil},
		// .NET's LDAP bind.
		{"ldapbind", `using var de = new DirectoryEntry("LDAP://dc1.corp.lan/DC=corp,DC=lan", "CORP\\bind", "` + pw + `");`, []string{pw}},
		{"ldapbind", `$de = New-Object DirectoryServices.DirectoryEntry("LDAP://10.0.0.5", "corp\ops", "` + pw + `")`, []string{pw}},
		{"ldapbind", `using var de = new DirectoryEntry("LDAP://dc1.corp.lan", bindUser, bindPassword);`, nil},
		{"ldapbind", `var de = new DirectoryEntry("LDAP://dc1.corp.lan", "svc", null, AuthenticationTypes.Secure);`, nil},
		// A PEM private key encoded whole in base64, anywhere on the line.
		{"pem64", `echo "` + pem64 + `" | base64 -d > ~/.ssh/id_ed25519`, []string{pem64}},
		{"pem64", `  - echo ` + pem64 + ` | base64 --decode > deploy.key && chmod 600 deploy.key`, []string{pem64}},
		{"pem64", `echo ` + pub64 + ` | base64 -d > server.pub`, nil},
		{"pem64", `echo ` + elided64 + ` | base64 -d`, nil},
		{"pem64", `echo "$DEPLOY_KEY_B64" | base64 -d > deploy.key`, nil},
	})
}

// TestGluedOpen checks the one-word names, lowercased, that a credential
// word glued to any word ends, and those it does not.
func TestGluedOpen(t *testing.T) {
	cases := map[string]bool{
		"jwtsecret": true, "cookiesecret": true, "webhooksecret": true, "signingsecret": true, "s3secret": true,
		"slacktoken": true, "githubtoken": true, "googleapikey": true, "awssecretkey": true,
		"secretkey": true, "privatekey": true,
		"secret": false, "token": false, "apikey": false, // credentialWord's, not glued
		"nexttoken": false, "pagetoken": false, "csrftoken": false, "cancellationtoken": false, "lasttoken": false,
		"pushtoken": false, "topsecret": false, "nosecret": false, "showsecret": false, "hashedtoken": false,
		"publicapikey": false, "x_secret": false, "averyveryverylongprefixsecret": false,
	}
	checkPredicate(t, "gluedOpen", func(w string) bool { return gluedOpen([]byte(w)) }, cases)
}

// TestCodeValue checks the values that are code around a literal rather
// than a credential, and passwords that look like them.
func TestCodeValue(t *testing.T) {
	checkPredicate(t, "codeValue", codeValue, map[string]bool{
		".$cfg['db']['pass']": true, `\$_GET[\"token\"]`: true, "'$CI_TOKEN'": true, `"$PW"`: true,
		"#reset-token-input": true, "#add-password": true, ",submitLabel:": true,
		"#Kq7-zr19": false, "#gets0m3": false, "#password": false, ".Xk9$pw": false,
		",submitLabel": false, ",9x:": false, "#Add-Password": false, "x": false,
	})
}
