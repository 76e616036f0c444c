import PlaceModel

/// The wire form of the taxonomy (`GET /v1/categories`, `geoquery categories`): what an app
/// builds its category filter from.
public enum CategoryAnswer {
    /// `{"count": N, "categories": [{"id", "label", "subcategories": [{"id", "label"}, …]}, …]}`:
    /// the top levels in display order, each with its subcategories; `count` is every category,
    /// top levels and subcategories.
    public static func json() -> OrderedJSON {
        let topLevels = Category.taxonomy.filter { $0.parent == nil }
        return .object([
            ("count", .int(Category.taxonomy.count)),
            (
                "categories",
                .array(
                    topLevels.map { top in
                        .object([
                            ("id", .string(top.identifier)),
                            ("label", .string(top.label)),
                            (
                                "subcategories",
                                .array(
                                    top.subcategories.map { sub in
                                        .object([("id", .string(sub.identifier)), ("label", .string(sub.label))])
                                    })
                            ),
                        ])
                    })
            ),
        ])
    }
}
