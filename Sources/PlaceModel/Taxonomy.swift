/// GeoQuery's taxonomy: every category a place can have, closed.
///
/// Every mapping from a source's own categories (OpenStreetMap tags, GeoNames feature codes,
/// Foursquare labels, the providers' types) lands on one of these, and a filter or a gem may name
/// only these: a typo is an error that lists what is valid, not a query that finds nothing.
/// Adding a subcategory is adding it here (a test checks that every mapping lands inside).
extension Category {
    /// The top levels in display order, each with its subcategories' last segments in
    /// alphabetical order.
    static let tree: [(topLevel: String, subcategories: [String])] = [
        ("food", ["bakery", "cafe", "dessert", "fast_food", "restaurant"]),
        ("drink", ["bar", "beer_garden", "brewery", "nightclub", "pub", "wine_shop", "winery"]),
        ("lodging", ["apartment", "camp_site", "chalet", "guest_house", "hostel", "hotel", "hut", "motel"]),
        ("culture", ["arts_centre", "artwork", "cinema", "concert_hall", "gallery", "library", "museum", "theatre"]),
        ("historic", ["archaeological_site", "castle", "city_gate", "fort", "manor", "memorial", "palace", "ruins"]),
        ("landmark", ["attraction", "bridge", "fountain", "monument", "tower", "viewpoint"]),
        (
            "nature",
            [
                "arch", "canyon", "cape", "cave", "cliff", "forest", "garden", "glacier", "island", "mountains",
                "park", "pass", "peak", "picnic_site", "reserve", "volcano",
            ]
        ),
        ("water", ["bay", "beach", "geyser", "hot_spring", "lake", "marina", "river", "spring", "waterfall"]),
        (
            "activity",
            [
                "amusement_park", "aquarium", "casino", "fitness", "golf", "playground", "sports_centre",
                "sports_pitch", "stadium", "swimming", "water_park", "zoo",
            ]
        ),
        (
            "shopping",
            [
                "books", "clothes", "convenience", "department_store", "gift", "jewelry", "mall", "market",
                "supermarket",
            ]
        ),
        (
            "transport",
            [
                "airport", "bicycle_rental", "bus_station", "car_rental", "ferry", "parking", "port", "station",
                "taxi",
            ]
        ),
        ("religious", ["cemetery", "church", "monastery", "mosque", "shrine", "synagogue", "temple"]),
        ("city", ["town", "village"]),
        (
            "service",
            [
                "atm", "bank", "charging_station", "craft", "drinking_water", "fuel", "health", "hospital", "office",
                "pharmacy", "police", "post_office", "school", "toilets", "tourist_information", "townhall",
                "university",
            ]
        ),
    ]

    /// Every category of the taxonomy: each top level followed by its subcategories.
    public static let taxonomy: [Category] = tree.flatMap { top, subcategories in
        [Category(trustedIdentifier: top)] + subcategories.map { Category(trustedIdentifier: "\(top).\($0)") }
    }

    static let taxonomyIdentifiers: Set<String> = Set(taxonomy.map(\.identifier))

    /// Whether `identifier` names a category of the taxonomy.
    public static func isInTaxonomy(_ identifier: String) -> Bool { taxonomyIdentifiers.contains(identifier) }

    /// The subcategories of this category, in display order (none for a subcategory).
    public var subcategories: [Category] {
        guard let entry = Category.tree.first(where: { $0.topLevel == identifier }) else { return [] }
        return entry.subcategories.map { Category(trustedIdentifier: "\(identifier).\($0)") }
    }

    /// The category of the taxonomy nearest to `identifier`: itself when it is in the taxonomy,
    /// else its deepest ancestor that is (`food` for `food.ramen`), else nil. For imports, which
    /// keep a source's finer category as a tag and file the place under what the taxonomy has.
    public init?(nearestInTaxonomy identifier: String) {
        var candidate = Substring(identifier)
        while !Category.isInTaxonomy(String(candidate)) {
            guard let dot = candidate.lastIndex(of: ".") else { return nil }
            candidate = candidate[..<dot]
        }
        self.init(trustedIdentifier: String(candidate))
    }

    /// A name for people, from the last segment: `Fast food` for `food.fast_food`, `ATM` for
    /// `service.atm`.
    public var label: String {
        let last = identifier.split(separator: ".").last.map(String.init) ?? identifier
        if last == "atm" { return "ATM" }
        let words = last.replacingOccurrences(of: "_", with: " ")
        return words.prefix(1).uppercased() + words.dropFirst()
    }

    /// What to tell someone who wrote `identifier`, which is not in the taxonomy: the
    /// subcategories of its top level, or the top levels, and the category it may have meant:
    /// the same in lower case, or one elsewhere with the same last segment (`landmark.viewpoint`
    /// for `nature.viewpoint`).
    static func validChoices(for identifier: String) -> String {
        let segments = identifier.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        let last = segments.last ?? ""
        let namesake =
            isInTaxonomy(identifier.lowercased())
            ? Category(trustedIdentifier: identifier.lowercased())
            : last.isEmpty ? nil : taxonomy.first { $0.identifier.hasSuffix(".\(last)") }
        let hint = namesake.map { "did you mean \($0.identifier)? " } ?? ""
        if let top = segments.first, let entry = tree.first(where: { $0.topLevel == top }), segments.count > 1 {
            let under = "under \(top) there are " + entry.subcategories.map { "\(top).\($0)" }.joined(separator: ", ")
            return hint.isEmpty ? under : hint + under.prefix(1).uppercased() + under.dropFirst()
        }
        let tops = "the top levels are " + topLevelIdentifiers.joined(separator: ", ") + ", each with subcategories such as water.beach"
        return hint.isEmpty ? tops : hint + tops.prefix(1).uppercased() + tops.dropFirst()
    }
}

extension Place {
    /// This place with each category outside the taxonomy filed under its nearest category in
    /// it (``Category/init(nearestInTaxonomy:)``; `food` for `food.ramen`) and the original kept
    /// in the `source_category` tag, as an import files a source's finer categories; nil when
    /// every category is in the taxonomy already.
    ///
    /// For what was stored before the taxonomy was closed (a gem made with `nature.viewpoint`):
    /// afterwards every category the place has is one a filter can name, and nothing the owner
    /// wrote is lost.
    public func filedUnderTheTaxonomy() -> Place? {
        guard categories.contains(where: { !Category.isInTaxonomy($0.identifier) }) else { return nil }
        var filed: [Category] = [], originals: [String] = []
        for category in categories {
            let nearest = Category(nearestInTaxonomy: category.identifier)
            if let nearest, !filed.contains(nearest) { filed.append(nearest) }
            if nearest?.identifier != category.identifier { originals.append(category.identifier) }
        }
        var place = self
        place.categories = filed
        let earlier = tags["source_category"].map { $0.split(separator: ";").map(String.init) } ?? []
        place.tags["source_category"] = (earlier + originals.filter { !earlier.contains($0) }).joined(separator: ";")
        return place
    }
}
