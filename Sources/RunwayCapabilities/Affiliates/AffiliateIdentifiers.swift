import RunwayKit

// The affiliates capability's ids (`TextIdentifier`: stored and sent as text, typed on the money path).

/// An affiliate (`aff_…`).
struct AffiliateId: TextIdentifier { let rawValue: String }

/// An affiliate program of one app (`prg_…`).
struct ProgramId: TextIdentifier { let rawValue: String }

/// A commission: one per program and transaction (`com_…`).
struct CommissionId: TextIdentifier { let rawValue: String }

/// The appAccountToken a bind minted: the purchase carries it back to the bind's affiliate and program.
struct BindToken: TextIdentifier { let rawValue: String }

/// A surface: an app in one App Store environment whose notifications arrive at one URL (`sfc_…`).
struct SurfaceId: TextIdentifier { let rawValue: String }
