@testable import RunwayCapabilities
@testable import RunwayConsole
import RunwayCrypto
@testable import RunwayKit
@testable import RunwayServer
import RunwayStore
import Testing

/// The schema steps are append-only: every released step keeps its id, its place and its SQL on both backends,
/// whichever capability declares it.
@Suite("Migration list")
struct MigrationListTests {
    /// Each released step: its id, and SHA-256 of its SQLite SQL, a newline, then its PostgreSQL SQL.
    static let released: [(id: String, sha256: String)] = [
        ("0001_tenancy", "a68132edd2a2a660f514a2ed4c1681afa22ea8460a0bfe9d78d0a71a7f31239f"),
        ("0002_idempotency", "19531ad841996a6e4842c313a71006c22ba2d30f1431b35def136dc0dfe04635"),
        ("0003_links", "2399bf2383f9e8d6a3d5b7223885485030dffe313370da1c1765e5419647668a"),
        ("0004_installs_events", "c0e5d6e5c650ed95be11b075c79ee03b60cd018defe4fd7c8189ca8b20266986"),
        ("0005_apple_ads", "0c2503a2f4bdc5a72c3d3ef1a69c5ca3d5a7c5d4b85c21b95ef11000ff846707"),
        ("0006_app_attest", "21cd03597a0d97dbd1dba12c196ee6da7e654ef7fd98f80ac0b08a7a27bc3fd1"),
        ("0007_postbacks", "1e71448b710ab1ecf5774169f1e68b5d4ae822e03188792569f67150681086eb"),
        ("0008_affiliates", "1d1f85d6e7f18d753c4f39bbc78af695bd5abdb39f9ce1db133ece732ab958b6"),
        ("0009_event_click_tokens", "82990ae079aea371d3ac153dad0cc89b6b7079f7741c893a181e5513dcee30a0"),
        ("0010_address_hash_retention", "455bac72ff04117cec4ef2bbacacc50058639fa95ac662d7db0b241674978629"),
        ("0011_console", "8c3ba23fd5545c88673243b26e4a95cb6f7844bd3f04da8cfc39af8cbf05d7e7"),
        ("0012_drop_clicks_by_token", "7f5e303407b4126e09dd12d6769441e64070585c14baf2b4875d8835dabab31c"),
        ("0013_console_sign_in_attempts", "5b396515adf0b3f294a4d43b5a1528339eaff0a400d32ca5dc2fe75497ca6758"),
        ("0014_idempotency_owners", "8198783f8b3c666aadbf53159374115a2e44a0197bef18e13ecfcbc6e2ba651d"),
        ("0015_one_commission_per_transaction", "3b5f3c4fbc4ef9a0f848e7971a6e6dba2a89b9d49b07ea2edba799632981ff27"),
        ("0016_key_makers", "7fd2267e15199a0c149bb20a9d7f19f19dbedd1e63a06e9c42056beffbf3d4a2"),
        ("0017_app_identities", "f86078c8ebc276953a076fbea4153935981ec138d7997db82c89c7dde0e464c6"),
        ("0018_postback_rejections", "99df1e7f4c28f2db4eab5af9c85282e835acecdb60d4c6882d5bf8fd6958087b"),
        ("0019_install_secrets", "f4ce44f4fd5d0286ff46547e22c5dde1fe098c89410ee20e69da2d1c16e3fae9"),
        ("0020_domain_verification", "50e1bd8e566424c8b2093ff36ff8c43f4ce9ffb44b085aef633024116f8198c1"),
        ("0021_install_app_transaction", "4ce2540922a9e40dcff9f7d886bcfff970e7ae4d5ba5e144de072e397556c281"),
        ("0022_app_store_2026", "3bb30c76732dd5c5bdc91af21c24b84e6b98eacec413a58493506f495e5ce99a"),
        ("0023_app_store_api_keys", "4dadfcfb09c3965763ffd89356cd3906080849e79940bf88c0de6ee8f96db2a3"),
        ("0024_ad_attribution_settings", "49bc91f65ec0785b83e354143386384924a129742b76bdba3aeaa6a50f88acee"),
        ("0025_development_postbacks", "4b4437b1fae0c4262cec6772cfd971c9ba431293b4b99ed2762a2894855c3600"),
        ("0026_qr_logos", "66ef945da04146246ac318c0f3f1a664ce5a645f1fd969a0ebc939bf1b07b549"),
        ("0027_link_automated_visits", "9f60231d44aea7b3832961d92fcfa100a8ba9a187b62964f704589bc54de750d"),
        ("0028_ad_placements", "a833d76f32432662ccd52408d19a42f7afb59f283752e6ab215dcfae3580a57b"),
        // Changed once, after 0.2.0: it had moved metadata.utm, the customer's own JSON, into the UTM fields; it now only
        // adds them, and 0047 puts back what it moved (0.2.0's SQL hashed to 7911cda7…).
        ("0030_link_routing", "330eb3fcc7a5804cc48a5e2223b03bd58393f07b24efb45e30b22179363e4029"),
        ("0031_variant_attribution", "09b4bad84458d8bf2baf6eda51b03e29a8801224877467e8f4f3c7971b257cc4"),
        ("0032_link_click_allowances", "742a48ca83861e73684168e8e56f08949e4b4ce03d931d70b01c6f607afcf83e"),
        ("0040_clicks_by_install_partial", "d4f5a432970b7b04a76a039f631e26dd466eb4f65fc37fe9cd71387c68f4c034"),
        ("0041_link_stats", "8935da774102bdbcd97c6ae1fd0ca4346ec541de56114a585dbb05f3e8474b9f"),
        ("0042_deferred_click_claims", "97342dfeaa65360f7561098eff7f3952f9ed7b77adb6f144280b79c8511dc683"),
        ("0043_console_user_makers", "ca5c40cdcd3902edbb774dcf22de8cffd54c8e51bbcccbde6a9f9164659df0cb"),
        ("0044_app_transaction_owners", "d3873de8b337061f5cb695f9985949bfbfd48012f6453ef65e11e2d86b1bdfaf"),
        ("0045_app_store_id_claims", "ecb903ae5c16f30a7e0e217958eeb11c60dc904b95b2953986860155034de603"),
        ("0046_in_app_browsers", "dfed48dc86da828458f612f2bcb0f1e093fde527bc69ade265509c54ff5b7b8e"),
    ]

    static func fingerprint(_ migration: Migration) -> String {
        ByteEncoding.hex(Digest.sha256(Array((migration.sqlite + "\n" + migration.postgres).utf8)))
    }

    @Test("the merged steps are the released ones, in their order, unchanged, and any new one comes after them")
    func releasedStepsUnchanged() {
        let merged = Schema.migrations
        #expect(merged.count >= Self.released.count)
        for (index, step) in Self.released.enumerated() where index < merged.count {
            #expect(merged[index].id == step.id, "step \(index + 1) is \(merged[index].id), not \(step.id)")
            #expect(Self.fingerprint(merged[index]) == step.sha256, "the SQL of \(step.id) changed: its hash is now \(Self.fingerprint(merged[index]))")
        }
        #expect(merged.map(\.id) == merged.map(\.id).sorted(), "ids sort in the order they apply")
        #expect(Set(merged.map(\.id)).count == merged.count, "no id twice")
    }
}
