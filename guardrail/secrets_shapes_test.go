package guardrail

import (
	"strings"
	"testing"
)

// shapeFinders are secrets_shapes.go's finders of one line, by name;
// the file finders' fuzz test runs them too.
var shapeFinders = map[string]func(string) []found{
	"shapes":    findShapes,
	"discord":   findDiscordBotTokens,
	"sidpair":   findSIDTokenPairs,
	"client":    findClientArgs,
	"cli":       findCLICredentials,
	"azure":     findSubscriptionKeys,
	"mailchimp": findMailchimpKeys,
}

func init() { addFinders("shape-", shapeFinders) }

// Values in each provider's format, made up for these tests.
const (
	testOpenRouter = "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"
	testDeepSeek   = "sk-7e3a9c1f5b2d8e4a6c0f9b3d7e1a5c8f"
	testBBDC       = "BBDC-NzQ2MTg5MzA1Nzc2OkR4+q/Vm3Lw9Tz1Kc5Hb8Ny2Pf6"
	testAppSync    = "da2-k7m2q9x4v1c8z5n3b6t0w2r4y7"
	testNRAK       = "NRAK-7QX2M9V4C1Z8N5B3T6W0R4Y7K2P"
	testNotion     = "secret_Qm7Xv2Lp9Tz4Wc1Rb8Nk3Hf6Jd0Gs5Ya2Ue7Io9Pa4L"
	testFigma      = "figd_Qm7Xv2Lp9Tz4-Wc1Rb8Nk3Hf6_Jd0Gs5Ya2Ue7Io"
	testMailgun    = "key-7qx2m9v4c1z8n5b3t6w0r4y7k2p9d3f5"
	testLDSDK      = "sdk-3f9c2a7e-1b4d-4e8f-9a2c-6d0b5e7f1a3c"
	testTwilioAuth = "9f3c2a7e1b4d6e8f0a2c4d6b8e0f1a3c"
	testTwilioSID  = "AC5e2d8f1a3c6b9e0d4f7a2c5b8e1d3f6a"
	testCohere     = "Vq3Lm8Tz2Wc7Rb1Nk6Hf0Jd5Gs9Ya4Ue2Io7Pa1"
	testAWSSecret  = "Hx8vQ2mLp9Tz/K7Rb1Nk6Hf0Jd5Gs9Ya4Ue2Io7P"
	testAWSSession = "FwoGZXIvYXdzEJr//////////wEaDHq7" + "Qm7Xv2Lp9Tz4Wc1Rb8Nk3Hf6Jd0Gs5Ya2Ue7IQm7Xv2Lp9Tz4Wc1Rb8Nk3Hf6Jd0Gs5Ya2Ue7I+Qm7Xv2Lp9Tz4Wc1Rb8Nk3Hf6Jd0Gs5Ya2Ue7I=="
	// A bot's ID of 19 digits in base64, then the timestamp and the HMAC.
	testDiscord = "MTE4NTQ4MjA0NzE2MzkwMDAzMg.Gx7Kq2.v9Tz4Wc1Rb8Nk3Hf6Jd0Gs5Ya2Ue7Io9Pa4Lm"
)

// TestShapeFinders checks the bytes each finder of secrets_shapes.go
// takes, and that it takes nothing of the look-alikes beside them.
func TestShapeFinders(t *testing.T) {
	atlassian := "ATATT3xFfGF0" + strings.Repeat("Qm7Xv2Lp9Tz4-Wc1Rb8_", 9) + "=4C1D2E3F"
	fb := "EAA" + strings.Repeat("Gm0PX4ZCpsBAKz4fQ9ZB", 6)
	checkFinders(t, shapeFinders, []finderCase{
		{"shapes", `client = OpenAI(base_url="https://openrouter.ai/api/v1", api_key="` + testOpenRouter + `")`, []string{testOpenRouter}},
		{"shapes", `client = OpenAI("` + testDeepSeek + `", base_url="https://api.deepseek.com")`, []string{testDeepSeek}},
		{"shapes", `  - ` + atlassian, []string{atlassian}},
		{"shapes", `| prod | ` + "`" + testBBDC + "`" + ` |`, []string{testBBDC}},
		{"shapes", `resp = call("https://x.appsync-api.us-east-1.amazonaws.com/graphql", "` + testAppSync + `")`, []string{testAppSync}},
		{"shapes", `level=error upstream_auth=` + testNRAK + ` attempt=3`, []string{testNRAK}},
		{"shapes", `const notion = new Client({ auth: "` + testNotion + `" });`, []string{testNotion}},
		{"shapes", `# previous one: ` + testFigma, []string{testFigma}},
		{"shapes", testMailgun, []string{testMailgun}},
		{"shapes", `client, _ := ld.MakeClient("` + testLDSDK + `", 5*time.Second)`, []string{testLDSDK}},
		{"shapes", `GET /me?fields=id&access_token=` + fb + `&limit=1`, []string{fb}},
		{"shapes", `OPENAI_KEY=sk-None-` + strings.Repeat("Qm7Xv2Lp9T", 3) + "T3BlbkFJ" + strings.Repeat("z4Wc1Rb8Nk", 3), []string{"sk-None-" + strings.Repeat("Qm7Xv2Lp9T", 3) + "T3BlbkFJ" + strings.Repeat("z4Wc1Rb8Nk", 3)}},
		{"shapes", `Langfuse(public_key="pk-lf-` + testLDSDK[4:] + `", secret_key="sk-lf-` + testLDSDK[4:] + `")`, []string{"sk-lf-" + testLDSDK[4:]}},
		{"shapes", `app = FirecrawlApp("fc-` + testTwilioAuth + `")`, []string{"fc-" + testTwilioAuth}},
		{"shapes", `-H "xi-api-key: sk_` + testTwilioAuth + testTwilioAuth[:16] + `"`, []string{"sk_" + testTwilioAuth + testTwilioAuth[:16]}},
		{"shapes", `rootly_` + testTwilioAuth + testTwilioAuth, []string{"rootly_" + testTwilioAuth + testTwilioAuth}},
		{"shapes", `GET https://besttime.app/api/v1/keys/pri_` + testTwilioAuth, []string{"pri_" + testTwilioAuth}},
		{"shapes", `stability_key("sk-` + testCohere + `Qm7Xv2Lp9")`, []string{"sk-" + testCohere + "Qm7Xv2Lp9"}},
		{"shapes", `const resend = new Resend("re_Qm7Xv2Lp_9Tz4Wc1Rb8Nk3Hf6Jd0Gs5Ya2");`, []string{"re_Qm7Xv2Lp_9Tz4Wc1Rb8Nk3Hf6Jd0Gs5Ya2"}},
		{"shapes", `-H "Authorization: Bearer xaat-` + testLDSDK[4:] + `"`, []string{"xaat-" + testLDSDK[4:]}},
		{"shapes", `OTEL_EXPORTER_OTLP_HEADERS="x-honeycomb-team=hcaik_01k4x5jaf9v7sdymjzmxvktd6whp9x2y75jj8y5f8y7aaf1zy6aedg9858"`, []string{"hcaik_01k4x5jaf9v7sdymjzmxvktd6whp9x2y75jj8y5f8y7aaf1zy6aedg9858"}},
		{"shapes", `dotnet nuget push pkg.nupkg -k oy2k7m2q9x4v1c8z5n3b6t0w2r4y7k7m2q9x4v1c8z5n3b -s nuget.org`, []string{"oy2k7m2q9x4v1c8z5n3b6t0w2r4y7k7m2q9x4v1c8z5n3b"}},
		{"shapes", `$mail->Password = 'xsmtpsib-` + testTwilioAuth + testTwilioAuth + `-Qm7Xv2Lp9Tz4Wc1R';`, []string{"xsmtpsib-" + testTwilioAuth + testTwilioAuth + "-Qm7Xv2Lp9Tz4Wc1R"}},
		{"shapes", `-H "Authorization: SSWS 00Qm7Xv2Lp9Tz4Wc1Rb8Nk3Hf6Jd0Gs5Ya2Ue7I_-x"`, []string{"SSWS 00Qm7Xv2Lp9Tz4Wc1Rb8Nk3Hf6Jd0Gs5Ya2Ue7I_-x"}},
		{"shapes", `{"access_token": "access-production-` + testLDSDK[4:] + `"}`, []string{"access-production-" + testLDSDK[4:]}},
		{"shapes", `gateway = braintree.BraintreeGateway(access_token="access_token$production$Qm7Xv2Lp9Tz4Wc1R$` + testTwilioAuth + `")`, []string{"access_token$production$Qm7Xv2Lp9Tz4Wc1R$" + testTwilioAuth}},
		{"shapes", `FLW_SECRET=FLWSECK-` + testTwilioAuth + `-X`, []string{"FLWSECK-" + testTwilioAuth + "-X"}},
		{"shapes", `curl -H "Authorization: pk_81234567_QM7XV2LP9TZ4WC1RB8NK3HF6JD0GS5YA" https://api.clickup.com/api/v2/team`, []string{"pk_81234567_QM7XV2LP9TZ4WC1RB8NK3HF6JD0GS5YA"}},
		// Look-alikes: masked, inside a word or base64, too short or too
		// long, a body of one kind of byte, a word rather than a token.
		{"shapes", `Your key looks like sk-or-v1-...a1b2`, nil},
		{"shapes", `task-7e3a9c1f5b2d8e4a6c0f9b3d7e1a5c8f`, nil},
		{"shapes", `sk-7e3a9c1f5b2d8e4a6c0f9b3d7e1a5c8f0`, nil}, // 33 hex digits
		{"shapes", `BBDC-...`, nil},
		{"shapes", `da2-abcdefghijklmnopqrstuvwxyz`, nil},
		{"shapes", `SECRET_KEY_BASE = secret_key_base_for_development_only_please`, nil},
		{"shapes", `store = KeyValueStore("key-value-cache-" + region)`, nil},
		{"shapes", `key-ab12`, nil},
		{"shapes", `id: api-3f9c2a7e-1b4d-4e8f-9a2c`, nil}, // not a whole UUID
		{"shapes", `sdk-3f9c2a7e-1b4d-4e8f-9a2c-6d0b5e7f1a3cz`, nil},
		{"shapes", `figd_...`, nil},
		{"shapes", `sk-proj-` + strings.Repeat("Qm7Xv2Lp9T", 8), nil}, // no T3BlbkFJ
		{"shapes", `sk-proj-T3BlbkFJ` + strings.Repeat("Qm7Xv2Lp9T", 8), nil},
		{"shapes", `fc-` + testTwilioAuth + `-beta`, nil},
		{"shapes", `model = "sk-` + strings.Repeat("a", 48) + `"`, nil},
		{"shapes", `store = re_compile_cache_for_patterns_in_module_loader`, nil},
		{"shapes", `xaat-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`, nil},
		{"shapes", `HONEYCOMB_API_KEY=hcaik_01krcjhcvkmt4q...`, nil},
		{"shapes", `access-sandbox-` + testLDSDK[4:], nil},
		{"shapes", `access_token$sandbox$Qm7Xv2Lp9Tz4Wc1R$` + testTwilioAuth, nil},
		{"shapes", `pk_live_51Qm7Xv2Lp9Tz4Wc1Rb8Nk3Hf6Jd0Gs5Ya2Ue`, nil},
		{"shapes", `FLWPUBK-` + testTwilioAuth + `-X`, nil},
		{"shapes", `Authorization: SSWS ${OKTA_TOKEN}`, nil},
		{"shapes", `sk_live_` + testTwilioAuth, nil}, // Stripe's rules' business
		{"shapes", `prefix pri_` + testTwilioAuth[:31], nil},
		{"shapes", `MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKC/` + fb, nil},
		{"mailchimp", `static const char *UPSTREAM = "` + testTwilioAuth + `-us11";`, []string{testTwilioAuth + "-us11"}},
		{"mailchimp", `mc.setConfig({ apiKey: "` + testTwilioAuth + `-us6", server: "us6" });`, []string{testTwilioAuth + "-us6"}},
		{"mailchimp", `https://us6.api.mailchimp.com/3.0/lists/` + testTwilioAuth, nil},
		{"mailchimp", `id-` + testTwilioAuth + `-us6`, nil},
		{"mailchimp", testTwilioAuth + `-us123`, nil},
		{"mailchimp", testTwilioAuth + `-useast`, nil},
		{"mailchimp", strings.Repeat("0", 32) + `-us1`, nil},
		{"shapes", `cred = credential.Credential("AKID` + testTwilioAuth[:16] + `Qm7Xv2Lp9Tz4Wc1R", key)`, []string{"AKID" + testTwilioAuth[:16] + "Qm7Xv2Lp9Tz4Wc1R"}},
		{"shapes", `creds = Credentials("AKIDEXAMPLE", secret)`, nil},
		{"discord", `client.run("` + testDiscord + `")`, []string{testDiscord}},
		{"discord", `acme-prod,deploy-bot,` + testDiscord + `,2026-01-04`, []string{testDiscord}},
		{"discord", `const APP_ID = "1185482047163900032";`, nil},
		{"discord", `MTE4NTQ4MjA0NzE2MzkwMDAzMg.Gx7Kq2.******`, nil},
		{"discord", `aGVsbG8gd29ybGQgaGVsbG8gd29y.Gx7Kq2.v9Tz4Wc1Rb8Nk3Hf6Jd0Gs5Ya2Ue7Io9Pa4Lm`, nil}, // not an ID
		{"discord", `x` + testDiscord, nil},
		{"sidpair", `client = Client("` + testTwilioSID + `", "` + testTwilioAuth + `")`, []string{testTwilioAuth}},
		{"sidpair", `Twilio.init('` + testTwilioSID + `', '` + testTwilioAuth + `');`, []string{testTwilioAuth}},
		{"sidpair", `{"sid": "` + testTwilioSID + `", "friendly_name": "acme"}`, nil},
		{"sidpair", `client = Client("` + testTwilioSID + `", os.environ["TWILIO_AUTH_TOKEN"])`, nil},
		{"sidpair", `client = Client("` + testTwilioSID + `", "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx")`, nil},
		{"cli", `aws configure set aws_secret_access_key ` + testAWSSecret, []string{testAWSSecret}},
		{"cli", `aws configure set profile.ci.aws_secret_access_key ` + testAWSSecret + ` && aws s3 ls`, []string{testAWSSecret}},
		{"cli", `aws configure set aws_session_token ` + testAWSSession, []string{testAWSSession}},
		{"cli", `wandb login ` + testTwilioAuth + `5e2d8f1a`, []string{testTwilioAuth + "5e2d8f1a"}},
		{"cli", `!wandb login --relogin ` + testTwilioAuth + `5e2d8f1a`, []string{testTwilioAuth + "5e2d8f1a"}},
		{"cli", `wandb.login(key="` + testTwilioAuth + `5e2d8f1a")`, []string{testTwilioAuth + "5e2d8f1a"}},
		{"cli", `aws configure set aws_secret_access_key $AWS_SECRET_ACCESS_KEY`, nil},
		{"cli", `aws configure set region us-east-1`, nil},
		{"cli", `aws configure set aws_access_key_id AKIAQX7M2V9C4Z1N8B3T`, nil}, // an ID: its own rule's
		{"cli", `wandb login --host=https://wandb.acme.io`, nil},
		{"cli", `wandb.login(key=os.environ["WANDB_API_KEY"])`, nil},
		{"cli", `wandb login ` + testTwilioAuth, nil}, // 32: not a W&B key
		{"azure", `curl -H "Ocp-Apim-Subscription-Key: ` + testTwilioAuth + `" https://westus.api.cognitive.microsoft.com/sts/v1.0/issueToken`, []string{testTwilioAuth}},
		{"azure", `headers = {"Ocp-Apim-Subscription-Key": "` + testTwilioAuth + `"}`, []string{testTwilioAuth}},
		{"azure", `client.DefaultRequestHeaders.Add("Ocp-Apim-Subscription-Key", "` + testTwilioAuth + `");`, []string{testTwilioAuth}},
		{"azure", `GET https://api.acme.io/orders?subscription-key=` + testTwilioAuth + `&top=5`, []string{testTwilioAuth}},
		{"azure", `var config = SpeechConfig.FromSubscription("` + testTwilioAuth + `", "westus");`, []string{testTwilioAuth}},
		{"azure", `headers = {"Ocp-Apim-Subscription-Key": os.environ["APIM_KEY"]}`, nil},
		{"azure", `-H "Ocp-Apim-Subscription-Key: {{subscriptionKey}}"`, nil},
		{"azure", `-H "Ocp-Apim-Subscription-Key: ` + testTwilioAuth + `ab"`, nil}, // 34
		{"azure", `var config = SpeechConfig.FromSubscription(speechKey, "westus");`, nil},
		{"azure", `The Ocp-Apim-Subscription-Key header carries the key.`, nil},
		{"client", `co = cohere.Client("` + testCohere + `")`, []string{testCohere}},
		{"client", `co = cohere.ClientV2("` + testCohere + `")`, []string{testCohere}},
		{"client", `let client = Client::new("` + testCohere + `");`, []string{testCohere}},
		{"client", `client = Acme::Client.new('` + testCohere + `')`, []string{testCohere}},
		{"client", `client = MistralClient("` + testCohere[:32] + `")`, []string{testCohere[:32]}},
		{"client", `c = redis.Client("localhost:6379")`, nil},
		{"client", `c = HttpClient("https://api.acme.io/v1/items")`, nil},
		{"client", `c = StorageClient("4f9c2a7e1b4d6e8f0a2c4d6b8e0f1a3c")`, nil}, // hex: an ID
		{"client", `w3 = EthClient("0x` + testTwilioAuth + `5e2d8f1a")`, nil},    // an address
		{"client", `c = Client("` + testLDSDK[4:] + `")`, nil},                   // a UUID
		{"client", `c = Client(os.environ["COHERE_API_KEY"])`, nil},
		{"client", `c = Client("my-service-name")`, nil},
		{"client", `c = ClientFactory("` + testCohere + `")`, nil}, // not a client's constructor
	})
}

// TestShapesThroughScan checks the readings that change judgements made
// elsewhere: a URL's user that is an interpolation, Supabase's anon key,
// Datadog's client token, Datadog's application key in its header.
func TestShapesThroughScan(t *testing.T) {
	anon := "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJzdXBhYmFzZSIsInJlZiI6Imtvd2RpZ2t4aXFqa3J2Ymh6dGFuIiwicm9sZSI6ImFub24iLCJpYXQiOjE3MDAwMDAwMDB9.Tz8mQ1vL4xR7pW2nKc5Hb8Ny2Pf6Qm7Xv2Lp9Tz4Wc1"
	service := "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJzdXBhYmFzZSIsInJlZiI6Imtvd2RpZ2t4aXFqa3J2Ymh6dGFuIiwicm9sZSI6InNlcnZpY2Vfcm9sZSIsImlhdCI6MTcwMDAwMDAwMH0.Tz8mQ1vL4xR7pW2nKc5Hb8Ny2Pf6Qm7Xv2Lp9Tz4Wc1"
	checkScans(t, []scanCase{
		{"db.rb", `URL = "mysql2://#{ENV["DB_USER"]}:Hx8vQ2mLp9Tz@db.acme.internal/app"`, true},
		{"push.py", `remote = f"https://{user}:Hx8vQ2mLp9Tz@git.acme.io/org/app.git"`, true},
		{"push.sh", `git push "https://${USER}:Hx8vQ2mLp9Tz@git.acme.io/org/app.git"`, true},
		{"db.rb", `URL = "mysql2://#{ENV["DB_USER"]}:#{ENV["DB_PASS"]}@db.acme.internal/app"`, false},
		{"push.py", `remote = f"https://{user}:{password}@git.acme.io/org/app.git"`, false},
		{"sb.ts", `const supabase = createClient("https://kowdigkxiqjkrvbhztan.supabase.co", "` + anon + `");`, false},
		{"sb.ts", `const admin = createClient("https://kowdigkxiqjkrvbhztan.supabase.co", "` + service + `");`, true},
		{"rum.ts", `datadogRum.init({ clientToken: "pub3a1aef7dec217de72db151c1ce21ad39", site: "datadoghq.com" });`, false},
		{"rum.ts", `datadogRum.init({ clientToken: "pub3a1aef7dec217de72db151c1ce21ad39aa" });`, true}, // not the client token's length
		{"dd.sh", `curl https://api.datadoghq.com/api/v1/monitor -H "DD-APPLICATION-KEY: cf05ff94bb618ac769572a5149dc2beaab12cd34"`, true},
		{"dd.sh", `curl https://api.datadoghq.com/api/v1/monitor -H "DD-APPLICATION-KEY: ${DD_APP_KEY}"`, false},
	})
}

// TestDiscordKeywords checks that the keywords are the base64 of three
// digits, as a bot token starts.
func TestDiscordKeywords(t *testing.T) {
	ks := discordKeywords()
	if len(ks) != 900 || ks[0] != "mtaw" || ks[len(ks)-1] != "otk5" {
		t.Errorf("discordKeywords() = %d keywords, %q ... %q; want 900, mtaw ... otk5", len(ks), ks[0], ks[len(ks)-1])
	}
	if !strings.HasPrefix(strings.ToLower(testDiscord), "mte4") {
		t.Errorf("testDiscord does not start with a keyword")
	}
}
