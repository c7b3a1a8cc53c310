import RunwayCrypto
import RunwayStore

extension SecretBox {
    /// A stored secret in the clear: a sealed one opened with this key; one stored before sealing existed as it is (the
    /// next start seals it). A sealed value that does not open is a damaged database or a wrong key file.
    package func reveal(_ stored: String, purpose: String) throws -> String {
        guard SecretBox.isSealed(stored) else { return stored }
        guard let plain = open(stored, purpose: purpose) else { throw StoreError.corrupt("a sealed \(purpose) does not open with the secret key file") }
        return plain
    }
}
