/// The SQL of step 0047. Step 0030 of release 0.2.0 moved the text values of `metadata.utm` (`{"utm":{"source":…}}`)
/// into the link's new UTM fields, removing them from the metadata the customer wrote, so resolve and match stopped
/// returning them and redirects began to carry them. This puts each value back under `metadata.utm` and clears the
/// field, for the links not changed since 0030 ran (`updated_at` before its `applied_at`): their UTM fields did not
/// exist before, so 0030 alone can have set them. A link changed since is left as it is.
enum LinkMetadataRestore {
    static let keys = ["source", "medium", "campaign", "term", "content"]

    static let untouchedSince0030 = """
        updated_at < (SELECT applied_at FROM schema_migrations WHERE id = '0030_link_routing')
        """

    static let sqlite = keys.map { key in
        """
        UPDATE links SET metadata = json_set(CASE WHEN json_type(metadata, '$.utm') = 'object' THEN metadata
                                                  ELSE json_set(COALESCE(metadata, '{}'), '$.utm', json('{}')) END,
                                             '$.utm.\(key)', utm_\(key)),
                         utm_\(key) = NULL
        WHERE utm_\(key) IS NOT NULL AND (metadata IS NULL OR json_valid(metadata)) AND \(untouchedSince0030);

        """
    }.joined()

    static let postgres = keys.map { key in
        """
        UPDATE links SET metadata = jsonb_set(COALESCE(metadata::jsonb, '{}'::jsonb), '{utm}',
                                              (CASE WHEN jsonb_typeof(metadata::jsonb -> 'utm') = 'object' THEN metadata::jsonb -> 'utm'
                                                    ELSE '{}'::jsonb END) || jsonb_build_object('\(key)', utm_\(key)))::text,
                         utm_\(key) = NULL
        WHERE utm_\(key) IS NOT NULL AND \(untouchedSince0030);

        """
    }.joined()
}
