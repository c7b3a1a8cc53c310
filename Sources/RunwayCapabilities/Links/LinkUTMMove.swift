/// The SQL of step 0030 that moves what the import kept in `metadata.utm` (`{"utm":{"source":…}}`) to the link's UTM
/// fields. Only text values move; anything else in `utm` stays in the metadata, which loses `utm` once it is empty and
/// becomes NULL once nothing is left.
enum LinkUTMMove {
    static let keys = ["source", "medium", "campaign", "term", "content"]

    static let sqlite = keys.map { key in
        """
        UPDATE links SET utm_\(key) = json_extract(metadata, '$.utm.\(key)'), metadata = json_remove(metadata, '$.utm.\(key)')
        WHERE json_valid(metadata) AND json_type(metadata, '$.utm.\(key)') = 'text';

        """
    }.joined() + """
        UPDATE links SET metadata = json_remove(metadata, '$.utm')
        WHERE json_valid(metadata) AND json_type(metadata, '$.utm') = 'object' AND json_extract(metadata, '$.utm') = '{}';
        UPDATE links SET metadata = NULL WHERE metadata = '{}';
        """

    static let postgres = keys.map { key in
        """
        UPDATE links SET utm_\(key) = metadata::jsonb #>> '{utm,\(key)}', metadata = (metadata::jsonb #- '{utm,\(key)}')::text
        WHERE metadata IS NOT NULL AND jsonb_typeof(metadata::jsonb #> '{utm,\(key)}') = 'string';

        """
    }.joined() + """
        UPDATE links SET metadata = (metadata::jsonb - 'utm')::text WHERE metadata IS NOT NULL AND metadata::jsonb -> 'utm' = '{}'::jsonb;
        UPDATE links SET metadata = NULL WHERE metadata IS NOT NULL AND metadata::jsonb = '{}'::jsonb;
        """
}
