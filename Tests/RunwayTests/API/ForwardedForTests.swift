import Foundation
import RunwayHTTP
import Testing

@Suite("Trusted proxies")
struct ForwardedForTests {
    @Test("addresses and ranges, IPv4 and IPv6, IPv4-mapped addresses as IPv4; garbage is refused")
    func ranges() throws {
        let proxies = try #require(TrustedProxies("127.0.0.1, 10.0.0.0/8, 2001:db8::/32, ::1"))
        #expect(proxies.contains("127.0.0.1") && proxies.contains("10.200.3.4") && proxies.contains("::ffff:10.1.1.1"))
        #expect(proxies.contains("2001:db8:1::7") && proxies.contains("::1"))
        #expect(!proxies.contains("127.0.0.2") && !proxies.contains("11.0.0.1") && !proxies.contains("2001:db9::1") && !proxies.contains("junk"))
        #expect(TrustedProxies("10.0.0.0/33") == nil && TrustedProxies("example.com") == nil)
        // Found by the fuzzer: a bare or half slash is refused, not a crash.
        #expect(TrustedProxies("/") == nil && TrustedProxies("10.0.0.0/") == nil && TrustedProxies("/8") == nil)
        #expect(TrustedProxies("")?.isEmpty == true)
    }

    @Test("X-Forwarded-For is believed only from a trusted proxy, and then its rightmost untrusted entry")
    func middleware() async throws {
        let echo = Route(method: .GET, pattern: "/who", operation: Operation(id: "who", summary: "who", tag: "t", access: .open,
                                                                                responses: [ResponseDoc(status: 200, description: "x")])) { request, _ in
            .text("\(request.remoteAddress ?? "-") \(request.scheme)")
        }
        let application = HTTPApplication(router: Router(routes: [echo]),
                                          middleware: [ForwardedForMiddleware(trusted: TrustedProxies("127.0.0.1, 10.0.0.0/8")!)])
        let client = TestClient(application)
        func who(from peer: String, _ headers: [(String, String)]) async -> String {
            await client.send("GET", "/who", headers: headers, remoteAddress: peer).bodyText
        }
        #expect(await who(from: "127.0.0.1", [("X-Forwarded-For", "198.51.100.7"), ("X-Forwarded-Proto", "https")]) == "198.51.100.7 https")
        #expect(await who(from: "127.0.0.1", [("X-Forwarded-For", "203.0.113.9, 198.51.100.7, 10.1.2.3")]) == "198.51.100.7 http",
                "a forged leftmost entry and a trusted inner proxy are skipped")
        #expect(await who(from: "198.51.100.50", [("X-Forwarded-For", "198.51.100.7"), ("X-Forwarded-Proto", "https")]) == "198.51.100.50 http",
                "a client that is not a proxy cannot claim another address")
        #expect(await who(from: "127.0.0.1", [("X-Forwarded-For", "not-an-address")]) == "127.0.0.1 http")
        #expect(await who(from: "127.0.0.1", [("X-Forwarded-For", "10.9.9.9")]) == "10.9.9.9 http", "all trusted: the leftmost")
    }
}
