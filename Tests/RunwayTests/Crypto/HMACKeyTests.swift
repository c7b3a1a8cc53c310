import RunwayCrypto
import Testing

@Suite("HMAC-SHA256 with a prepared key")
struct HMACKeyTests {
    @Test("gives OpenSSL's HMAC for keys shorter than, as long as and longer than a block, and for any message length",
          arguments: [0, 1, 32, 63, 64, 65, 200])
    func sameAsOpenSSL(_ keyLength: Int) {
        let key = SecureRandom.bytes(keyLength)
        let prepared = HMACSHA256Key(key)
        for length in [0, 1, 15, 55, 56, 64, 100, 1000] {
            let message = SecureRandom.bytes(length)
            let mac = message.withUnsafeBytes { prepared.authenticate($0) }
            #expect(mac == Digest.hmacSHA256(key: key, message: message), "key \(keyLength) bytes, message \(length) bytes")
        }
        #expect(prepared.authenticate("203.0.113.7") == Digest.hmacSHA256(key: key, message: Array("203.0.113.7".utf8)))
    }

    @Test("RFC 4231 test case 2")
    func rfc4231() {
        let mac = HMACSHA256Key(Array("Jefe".utf8)).authenticate("what do ya want for nothing?")
        #expect(ByteEncoding.hex(mac) == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    }
}
