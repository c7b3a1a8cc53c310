// Compiled on its own too, with ClientClassifier.swift, by scripts/fuzz.sh, where the kit is not a module.
#if canImport(RunwayKit)
import RunwayKit
#endif

/// The one list of User-Agent tokens of link previews and bots, each with a User-Agent it must catch (the tests check
/// every entry). Operators add their own with `LINKRUNWAY_AUTOMATED_CLIENTS_FILE`. In-app browsers (Facebook's FBAN,
/// Instagram, LinkedInApp) are people and must not match any entry.
enum AutomatedClients {
    struct Entry: Sendable {
        let pattern: AutomatedClientPattern
        /// A User-Agent this entry is for.
        let example: String

        init(_ kind: AutomatedClientPattern.Kind, _ token: String, example: String) {
            pattern = AutomatedClientPattern(token: token, kind: kind)
            self.example = example
        }
    }

    static let builtIn: [Entry] = [
        // Previews in messengers and social networks. iMessage introduces itself as "facebookexternalhit … Facebot Twitterbot".
        Entry(.preview, "facebookexternalhit", example: "facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)"),
        Entry(.preview, "facebot", example: "Facebot"),
        // Before twitterbot, which Telegram's User-Agent names too.
        Entry(.preview, "telegrambot", example: "TelegramBot (like TwitterBot)"),
        Entry(.preview, "twitterbot", example: "Twitterbot/1.0"),
        Entry(.preview, "slackbot", example: "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)"),
        Entry(.preview, "slack-imgproxy", example: "Slack-ImgProxy (+https://api.slack.com/robots)"),
        Entry(.preview, "linkedinbot", example: "LinkedInBot/1.0 (compatible; Mozilla/5.0; Apache-HttpClient +http://www.linkedin.com)"),
        Entry(.preview, "whatsapp/", example: "WhatsApp/2.23.20.0 A"),
        Entry(.preview, "discordbot", example: "Mozilla/5.0 (compatible; Discordbot/2.0; +https://discordapp.com)"),
        Entry(.preview, "pinterestbot", example: "Mozilla/5.0 (compatible; Pinterestbot/1.0; +http://www.pinterest.com/bot.html)"),
        Entry(.preview, "redditbot", example: "Mozilla/5.0 (compatible; redditbot/1.0; +http://www.reddit.com/feedback)"),
        Entry(.preview, "skypeuripreview", example: "Mozilla/5.0 (Windows NT 6.1; WOW64) SkypeUriPreview Preview/0.5"),
        Entry(.preview, "embedly", example: "Mozilla/5.0 (compatible; Embedly/0.2; +http://support.embed.ly/)"),
        Entry(.preview, "mastodon/", example: "Mastodon/4.2.1 (http.rb/5.1.1; +https://mastodon.social/)"),
        Entry(.preview, "bluesky cardyb", example: "Mozilla/5.0 (compatible; Bluesky Cardyb/1.1; +mailto:support@bsky.app)"),
        Entry(.preview, "iframely", example: "Iframely/1.3.1 (+https://iframely.com/docs/about)"),
        Entry(.preview, "vkshare", example: "Mozilla/5.0 (compatible; vkShare; +http://vk.com/dev/Share)"),
        Entry(.preview, "bingpreview", example: "Mozilla/5.0 (Windows NT 10.0) AppleWebKit/537.36 BingPreview/1.0b"),
        // Search and SEO crawlers.
        Entry(.bot, "applebot", example: "Mozilla/5.0 (Macintosh) AppleWebKit/605.1.15 (KHTML, like Gecko) Applebot/0.1"),
        Entry(.bot, "googlebot", example: "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"),
        Entry(.bot, "adsbot-google", example: "AdsBot-Google (+http://www.google.com/adsbot.html)"),
        Entry(.bot, "google-inspectiontool", example: "Mozilla/5.0 (compatible; Google-InspectionTool/1.0;)"),
        Entry(.bot, "bingbot", example: "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)"),
        Entry(.bot, "yandexbot", example: "Mozilla/5.0 (compatible; YandexBot/3.0; +http://yandex.com/bots)"),
        Entry(.bot, "duckduckbot", example: "DuckDuckBot/1.1; (+http://duckduckgo.com/duckduckbot.html)"),
        Entry(.bot, "baiduspider", example: "Mozilla/5.0 (compatible; Baiduspider/2.0; +http://www.baidu.com/search/spider.html)"),
        Entry(.bot, "yahoo! slurp", example: "Mozilla/5.0 (compatible; Yahoo! Slurp; http://help.yahoo.com/help/us/ysearch/slurp)"),
        Entry(.bot, "petalbot", example: "Mozilla/5.0 (Linux; Android 7.0;) AppleWebKit/537.36 (compatible; PetalBot;+https://webmaster.petalsearch.com/site/petalbot)"),
        Entry(.bot, "ahrefsbot", example: "Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)"),
        Entry(.bot, "semrushbot", example: "Mozilla/5.0 (compatible; SemrushBot/7~bl; +http://www.semrush.com/bot.html)"),
        Entry(.bot, "mj12bot", example: "Mozilla/5.0 (compatible; MJ12bot/v1.4.8; http://mj12bot.com/)"),
        Entry(.bot, "dotbot", example: "Mozilla/5.0 (compatible; DotBot/1.2; +https://opensiteexplorer.org/dotbot)"),
        // Uptime checkers.
        Entry(.bot, "uptimerobot", example: "Mozilla/5.0+(compatible; UptimeRobot/2.0; http://www.uptimerobot.com/)"),
        Entry(.bot, "pingdom", example: "Pingdom.com_bot_version_1.4_(http://www.pingdom.com/)"),
        Entry(.bot, "statuscake", example: "Mozilla/5.0 (Windows NT 6.1) StatusCake"),
        Entry(.bot, "site24x7", example: "Site24x7"),
        Entry(.bot, "better uptime bot", example: "Better Uptime Bot Mozilla/5.0 (Windows NT 10.0; Win64; x64)"),
        Entry(.bot, "uptime-kuma", example: "Uptime-Kuma/1.23.0"),
        Entry(.bot, "updown.io", example: "updown.io daemon 2.11"),
    ]

    /// HTTP client libraries, command-line tools, headless browsers, test and monitoring tools, and a few named
    /// services whose User-Agents are otherwise a browser's: searched after the list above, each recorded as the
    /// visit's agent (a bot).
    static let clientTools = [
        "curl", "wget", "python", "aiohttp", "httpx", "go-http-client", "java/", "java ", "(java)", "apache-httpclient",
        "httpclient", "okhttp", "node-fetch", "node.js", "axios", "undici", "libwww", "lwp::", "lwp-", "php/", "php ",
        "guzzle", "ruby", "faraday", "http.rb", "rest-client", "dart:", "dart/", "postman", "insomnia", "httpie",
        "powershell", "winhttp", "wininet", "scrapy", "colly", "headless", "phantomjs", "puppeteer", "playwright",
        "selenium", "lighthouse", "gtmetrix", "pagespeed", "nutch", "heritrix", "wordpress", "jakarta", "urllib", "perl",
        "libcurl", "zgrab", "masscan", "nmap", "nikto", "sqlmap", "cfnetwork", "dalvik", "reqwest", "hackney", "mechanize",
        "ia_archiver", "feedparser", "grpc", "aws-sdk", "cloudflare", "datadog", "newrelic", "zabbix", "nagios",
        "check_http", "jetty", "synapse", "indy library", "qt/", "libfetch", "htmlunit", "jsdom", "httrack",
        "offline explorer", "webcopier", "webzip", "screaming frog", "xenu", "w3c_", "ahc/", "reactor-netty", "vert.x",
        "akka-http", "netty/", "electron/", "ptst/", "favicon", "outbrain", "datanyze", "google-", "newsai", "hardenize",
        "silktide", "linktiger", "securityheaders", "hotjar", "readable/", "marketgoo", "openvas", "rigor", "netcraft",
        "appinsights", "dareboost", "sindup", "foregenix", "collapsify", "splash", "manus-user", "physicalweb",
    ]

    /// Words (and their common spellings) that name what an unnamed machine does; "preview" makes a preview, the
    /// rest bots.
    static let machineWords = [
        "bot", "crawl", "spider", "scrap", "preview", "monitor", "checker", "check", "fetch", "archiv", "scan", "probe",
        "analy", "feed", "uptime", "audit", "seo", "sitemap", "screenshot", "capture", "validator", "verif", "inspect",
        "parser", "extract", "harvest", "grabber", "collector", "tracker", "sniffer", "resolver", "agent", "finder",
        "slurp", "robot", "indexer", "survey", "optimizer",
    ]

    /// Words of people's User-Agents that hold a machine word (a phone maker): the word search skips them.
    static let peopleWords = ["cubot"]

    /// A URL, a domain or a contact address in the User-Agent: browsers never carry one, crawlers say who they are.
    static let contactSignatures = ["http://", "https://", "+http", "www.", "mailto:", ".com", ".net", ".org", ".io", ".fr"]

    /// The agents recorded for machines recognised by a sign rather than a token.
    static let noUserAgent = "no-user-agent"
    static let contactSignature = "contact-in-user-agent"
    static let compatibleSignature = "compatible-not-msie"
    static let notABrowser = "not-a-browser"

    /// The kind of an agent that is not on the named list: "preview" for the word, a bot otherwise.
    static func kind(ofUnlisted token: String) -> AutomatedClientPattern.Kind { token == "preview" ? .preview : .bot }

    /// Whether a `Purpose` or `Sec-Purpose` header announces a prefetch (`prefetch`, `prefetch;prerender`, …).
    static func isPrefetch(purpose: String?, secPurpose: String?) -> Bool {
        [purpose, secPurpose].contains { $0?.lowercased().contains("prefetch") == true }
    }
}
