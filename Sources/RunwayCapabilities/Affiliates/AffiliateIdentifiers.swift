import RunwayStore

/// An id of the affiliates capability, kept as the text that is stored and sent, and typed so that on the money path
/// one kind cannot be passed for another. Decodes from its column (`RowDecoder`) and binds as text.
protocol AffiliateIdentifier: RawRepresentable<String>, Hashable, Sendable, Decodable, SQLBindable, CustomStringConvertible {
    init(rawValue: String)
}

extension AffiliateIdentifier {
    var description: String { rawValue }
}

/// An affiliate (`aff_…`).
struct AffiliateId: AffiliateIdentifier { let rawValue: String }

/// An affiliate program of one app (`prg_…`).
struct ProgramId: AffiliateIdentifier { let rawValue: String }

/// A commission: one per program and transaction (`com_…`).
struct CommissionId: AffiliateIdentifier { let rawValue: String }

/// The appAccountToken a bind minted: the purchase carries it back to the bind's affiliate and program.
struct BindToken: AffiliateIdentifier { let rawValue: String }
