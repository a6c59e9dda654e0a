package guardrail

import (
	"testing"
)

// formatFinders are secrets_formats.go's finders of one line, by name, in
// a configuration file, in source code and in a Terraform state; the file
// finders' fuzz test runs them too.
var formatFinders = map[string]func(string) []found{
	"directive": func(t string) []found { return (&scanFile{path: "etc/app.conf"}).findDirectives(t, "", 1) },
	"glued": func(t string) []found {
		return (&scanFile{path: "LocalSettings.php", code: true}).findDirectives(t, "", 1)
	},
	"format":  func(t string) []found { return (&scanFile{path: "etc/app.conf"}).findFormats(t, "", 1) },
	"tfstate": func(t string) []found { return (&scanFile{path: "terraform.tfstate"}).findFormats(t, "", 1) },
}

func init() { addFinders("format-", formatFinders) }

// TestFormatFinders checks the bytes each one-line finder of
// secrets_formats.go takes, and that it takes nothing of the look-alikes
// beside them.
func TestFormatFinders(t *testing.T) {
	const pw = "Tz8mQ1vL4xR7pW2n"
	const uuid = "6f1c2a9e-3b7d-4e58-9a0c-d2e4f6a8b1c3"
	checkFinders(t, formatFinders, []finderCase{
		// Directives: a name, blanks, a value.
		{"directive", `Pass ` + pw, []string{pw}},
		{"directive", `    auth_pass ` + pw, []string{pw}},
		{"directive", `AuthLDAPBindPassword "` + pw + `"`, []string{pw}},
		{"directive", `    HTTP_Passwd ` + pw + `  # fluent-bit`, []string{pw}},
		{"format", `    secret "` + pw + `";`, []string{pw}},
		{"format", `"//registry.yarnpkg.com/:_authToken" "` + uuid + `"`, []string{uuid}},
		{"directive", `Pass ${IMAP_PASSWORD}`, nil},
		{"directive", `PassCmd "pass show mail"`, nil},
		{"directive", `password_file /etc/app/password`, nil},
		{"directive", `token ` + pw, nil}, // not a word of the detector's
		{"format", `    secret "${TSIG_SECRET}";`, nil},
		{"directive", `apiKey |` + pw, nil},    // no keyword of the detector's: the table's
		{"directive", `Password string`, nil},  // a word
		{"directive", `password = ` + pw, nil}, // an assignment: the assignment rule's
		{"glued", `$wgDBpassword = "` + pw + `";`, []string{pw}},
		{"glued", `remotepass = "` + pw + `"`, []string{pw}},
		{"glued", `<Properties cpassword="` + pw + `" />`, []string{pw}},
		{"glued", `$bypass = "` + pw + `";`, nil},
		{"glued", `$compass = "` + pw + `";`, nil},
		{"glued", `$wgDBpassword = getenv("MW_DB_PASSWORD");`, nil},
		{"glued", `remotepass = ` + pw, nil}, // unquoted in code
		// Formats: the places a file's grammar keeps a credential in.
		{"format", `machine registry.acme.io password ` + pw + ` login ci`, []string{pw}},
		{"format", `default login anonymous password ` + pw, []string{pw}},
		{"format", `poll imap.acme.io protocol IMAP user "jdoe" password "` + pw + `" ssl`, []string{pw}},
		{"format", `    user ops insecure-password ` + pw, []string{pw}},
		{"format", `    stats auth admin:` + pw, []string{pw}},
		{"format", `sentinel auth-pass mymaster ` + pw, []string{pw}},
		{"format", `AUTH default ` + pw, []string{pw}},
		{"format", `user app on >` + pw + ` ~app:* +@all`, []string{pw}},
		{"format", `user app on #6b86b273ff34fce19d6b804eff5a3f5747ada4eaa22f1d49c01e52ddb7875b4b ~* +@all`, nil},
		{"format", `username admin privilege 15 password 0 ` + pw, []string{pw}},
		{"format", `enable secret 5 $1$mERr$hx5rVt7rPNoS4wqbXKX7m0`, nil},
		{"format", `snmp-server community ` + pw + ` RO`, []string{pw}},
		{"format", `snmp-server community public RO`, nil},
		{"format", `createUser monitor SHA "` + pw + `" AES "` + pw + `x"`, []string{pw}},
		{"format", `rootpw --plaintext ` + pw, []string{pw}},
		{"format", `rootpw --iscrypted $6$abc$def`, nil},
		{"format", `user --name=deploy --password=` + pw + ` --plaintext`, []string{pw}},
		{"format", `user --name=deploy --password=` + pw + ` --iscrypted`, nil},
		{"format", `d-i passwd/root-password password ` + pw, []string{pw}},
		{"format", `d-i passwd/root-password-crypted password $6$abc$def`, nil},
		{"format", `SQLConnectInfo ftp@db.acme.io ftpd ` + pw, []string{pw}},
		{"format", `: PSK "` + pw + `"`, []string{pw}},
		{"format", `jdoe : EAP "` + pw + `"`, []string{pw}},
		{"format", `: RSA /etc/ipsec.d/private/vpn-key.pem`, nil},
		{"format", `jdoe:{PLAIN}` + pw + `::::::`, []string{pw}},
		{"format", `jdoe:{SHA512-CRYPT}$6$abc$def::::::`, nil},
		{"format", `    proxy_set_header X-Api-Key ` + pw + `;`, []string{pw}},
		{"format", `    header_up X-Auth-Token ` + pw, []string{pw}},
		{"format", `    proxy_set_header Authorization $http_authorization;`, nil},
		{"format", `    proxy_set_header X-Real-IP $remote_addr;`, nil},
		{"format", `Authorization: Basic ops:` + pw, []string{pw}},
		{"format", `sqlplus app_owner/` + pw + `@ORCLPDB1 @deploy.sql`, []string{pw}},
		{"format", `expdp system/` + pw + `@PROD schemas=APP`, []string{pw}},
		{"format", `sqlplus /nolog @deploy.sql`, nil},
		{"format", `http -a ops:` + pw + ` POST https://api.acme.io/v1/deploy`, []string{pw}},
		{"format", `echo "` + pw + `" > /etc/mongo/keyfile`, []string{pw}},
		{"format", `echo "` + pw + `" > /tmp/out.txt`, nil},
		{"format", `echo "$TOKEN" > ~/.vault-token`, nil},
		{"format", `ExecStart=/usr/bin/restic backup --password-command "echo ` + pw + `"`, []string{pw}},
		{"format", `passwordeval "gpg -q -d ~/.msmtp.gpg"`, nil},
		{"format", `args: ['login', '-u', 'ci', '-p', '` + pw + `', 'registry.acme.io']`, []string{pw}},
		{"format", `args: ['run', '-p', '8080:80', 'nginx']`, nil},
		{"format", `test: ["CMD", "mysqladmin", "ping", "-uroot", "-p` + pw + `"]`, []string{pw}},
		{"format", `[{rabbit, [{default_user, <<"admin">>}, {default_pass, <<"` + pw + `">>}]}].`, []string{pw}},
		{"format", `{default_user, <<"` + pw + `">>}`, nil},
		{"format", `<property name="hibernate.connection.password">` + pw + `</property>`, []string{pw}},
		{"format", `<property name="jakarta.persistence.jdbc.password" value="` + pw + `"/>`, []string{pw}},
		{"format", `<property name="hibernate.connection.username">app</property>`, nil},
		{"format", `<passphrase>` + pw + `</passphrase>`, []string{pw}},
		{"format", `<Pass encoding="base64">VHo4bVExdkw0eFI3cFcybg==</Pass>`, []string{"VHo4bVExdkw0eFI3cFcybg=="}},
		{"format", `<Pass encoding="base64">AAECAwQF</Pass>`, nil}, // not text
		{"format", `<Value>` + pw + `</Value><PlainText>true</PlainText>`, []string{pw}},
		{"format", `<Value>` + pw + `</Value><PlainText>false</PlainText>`, nil},
		{"format", `<Properties cpassword="j1Uyj3Vx8TY9LtLZil2uAuZkFQA/4latT76ZwgdHdhw" />`, []string{"j1Uyj3Vx8TY9LtLZil2uAuZkFQA/4latT76ZwgdHdhw"}},
		{"format", `<Properties cpassword="" />`, nil},
		{"format", `"apikey": [{"key": "value", "value": "` + pw + `"}]`, []string{pw}},
		{"format", `{"username":"jdoe","key":"5018ebfac1d4262c26dae172d2bebcc7"}`, []string{"5018ebfac1d4262c26dae172d2bebcc7"}},
		{"format", `{"key":"5018ebfac1d4262c26dae172d2bebcc7"}`, nil},
		{"format", `encrypt = "wVOPCq/8kKkyM2N5oEANuAO9CHJT0HZ749nSh83bn+U="`, []string{"wVOPCq/8kKkyM2N5oEANuAO9CHJT0HZ749nSh83bn+U="}},
		{"format", `encrypt = true`, nil},
		{"format", `    initial_management = "` + uuid + `"`, []string{uuid}},
		{"format", `{"tokens": {"master": "` + uuid + `"}}`, []string{uuid}},
		{"format", `{"master": "` + uuid + `"}`, nil},
		{"format", `      - routing_key: 0f5d9b3e7a1c4e6f8b2d0a9c7e5f3b1d`, []string{"0f5d9b3e7a1c4e6f8b2d0a9c7e5f3b1d"}},
		{"format", `kubeadm join 10.0.0.10:6443 --token i0837g.up2hltv8qrtjhzt3 --discovery-token-ca-cert-hash sha256:88`, []string{"i0837g.up2hltv8qrtjhzt3"}},
		{"format", `kubeadm join 10.0.0.10:6443 --token abcdef.0123456789abcdef`, nil}, // kubeadm's documented token
		{"format", `    psk="` + pw + `"`, []string{pw}},
		{"format", `psk-flags=1`, nil},
		{"format", `BUNDLE_GEMS__ACME__IO: "ci:` + pw + `"`, []string{pw}},
		{"format", `BUNDLE_PATH: "vendor/bundle"`, nil},
		{"format", `  - https://conda.anaconda.org/t/` + pw + `/acme`, []string{pw}},
		{"format", `password = """` + pw + `"""`, []string{pw}},
		{"format", `description = """` + pw + `"""`, nil},
		{"format", `aws_session_token=IQoJb3JpZ2luX2VjEAHcyvcxTTq2YC7hLQCzqce4crdpsOU/6wxAKHoQK8d6CsEnrvUbUZf8JMSTco3A3lwomvYGBjBLjMwSPWnGsQ8texQzZ0MlT14lYp`,
			[]string{"IQoJb3JpZ2luX2VjEAHcyvcxTTq2YC7hLQCzqce4crdpsOU/6wxAKHoQK8d6CsEnrvUbUZf8JMSTco3A3lwomvYGBjBLjMwSPWnGsQ8texQzZ0MlT14lYp"}},
	})
}

// TestFormatsThroughScan checks the readings that need the file's name or
// the next line, and the look-alikes the scan as a whole allows.
func TestFormatsThroughScan(t *testing.T) {
	checkScans(t, []scanCase{
		{"etc/ppp/chap-secrets", "# client server secret IP\n\"vpnuser\" * \"Tz8mQ1vL4xR7pW2n\" *", true},
		{"etc/ppp/pap-secrets", "dsluser@isp.net * Tz8mQ1vL4xR7pW2n", true},
		{"etc/davfs2/secrets", "https://dav.acme.io/webdav jdoe Tz8mQ1vL4xR7pW2n", true},
		{".curlrc", `user = "ci:Tz8mQ1vL4xR7pW2n"`, true},
		{".curlrc", `user = "ci"`, false},
		{"etc/ntp.keys", "1 SHA1 664e011b349347c32894e2c8406f84cacb02cca0  # ntp1", true},
		{"etc/chrony.keys", "10 SHA256 HEX:12D606259B0A2B48A3C274D19933E4C01D434FE2972B4DFA3579A5C7B7C5AFB2", true},
		{"etc/chrony.keys", "# ID TYPE KEY", false},
		{"terraform.tfstate", `            "result": "Tz8mQ1vL4xR7pW2n",`, true},
		{"terraform.tfstate", `            "result": "ok",`, false},
		{"report.json", `            "result": "Tz8mQ1vL4xR7pW2n",`, false},
		{".erlang.cookie", "XBXMIFUOIXXAIOFZASVC", true},
		{"notes.txt", "XBXMIFUOIXXAIOFZASVC", false},
		{"zookeeper_jaas.conf", "Server {\n    org.apache.zookeeper.server.auth.DigestLoginModule required\n    user_super=\"Tz8mQ1vL4xR7pW2n\";\n};", true},
		{"zookeeper_jaas.conf", "    user_super=\"${SUPER_PASSWORD}\";", false},
		{"notes.txt", `user = "ci:Tz8mQ1vL4xR7pW2n"`, false},
		{"etc/ppp/chap-secrets", "# client server secret IP", false},
		{"docs/secrets", "https://dav.acme.io/webdav jdoe Tz8mQ1vL4xR7pW2n", false},
		{"client.ovpn", "<tls-auth>\n-----BEGIN OpenVPN Static key V1-----\n3c5f0a8e9d1b7c2f4e6a8b0d1c3e5f7a\n", true},
		{"cert.pem", "-----BEGIN ARGO TUNNEL TOKEN-----\nZXlKaElqb2lNVEl6TkRVMk56ZzVNQ0lzSW5RaU9pSm1OV1UwTkRFPQ\n", true},
		{"docs/vpn.md", "The file starts with `-----BEGIN OpenVPN Static key V1-----`.", false},
		{"autounattend.xml", "<AdministratorPassword>\n  <Value>Tz8mQ1vL4xR7pW2n</Value>\n  <PlainText>true</PlainText>", true},
		{"config.php", `$cfg['Servers'][$i]['password'] = '@t-R#-u!t2v.=xCIj';`, true}, // a password that starts with @
		{"Startup.cs", `configuration["Auth:ClientSecret"] = "@Microsoft.KeyVault(SecretUri=https://kv.vault.azure.net/secrets/x/)";`, false},
		{"app.properties", "db.password=@DB_PASSWORD@", false},
		{"app.properties", "db.password=@@TOKEN@@", false},
		{"jupyter_notebook_config.py", "c.NotebookApp.password = 'sha1:ec956a4223c7:392a4411a70b0fd0d2001fe5bc5de4af387adcf9'", false},
		{"wpa_supplicant.conf", "network={\n    password=hash:6b0f2e1a9d3c5e7f8a0b2c4d6e8f0a1b\n}", false},
		{"config/parameters.yml", "parameters:\n    database_password: '%env(DATABASE_PASSWORD)%'", false},
		{"jvm.options", "-Djavax.net.ssl.trustStorePassword=changeit", false},
		{"harbor.yml", "harbor_admin_password: Harbor12345", false},
	})
}
