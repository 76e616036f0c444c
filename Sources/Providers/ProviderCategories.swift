import PlaceModel

/// Provider categories → the common taxonomy (providers.md §6), and back for search filters.
///
/// Mapped by exact id where the provider's ids are stable (Google types, Yelp aliases), by
/// prefix or parent range where leaf ids are not (HERE `LLL-MMMM-NNNN`, Foursquare's numeric
/// ranges), and by words of the label last (Foursquare's new BSON ids, unlisted Yelp aliases).
/// Unmapped categories are kept only as ``ProviderCategory``s.
enum ProviderCategories {
    // MARK: Google place types (Table A)

    static let google: [String: String] = [
        "restaurant": "food.restaurant", "meal_takeaway": "food.restaurant", "meal_delivery": "food.restaurant",
        "fast_food_restaurant": "food.fast_food", "food": "food", "bakery": "food.bakery",
        "cafe": "food.cafe", "coffee_shop": "food.cafe", "tea_house": "food.cafe",
        "ice_cream_shop": "food.dessert", "dessert_shop": "food.dessert",
        "bar": "drink.bar", "wine_bar": "drink.bar", "pub": "drink.pub", "night_club": "drink.nightclub",
        "lodging": "lodging", "hotel": "lodging.hotel", "resort_hotel": "lodging.hotel", "motel": "lodging.motel",
        "hostel": "lodging.hostel", "campground": "lodging.camp_site", "bed_and_breakfast": "lodging.guest_house",
        "guest_house": "lodging.guest_house",
        "museum": "culture.museum", "art_gallery": "culture.gallery", "performing_arts_theater": "culture.theatre",
        "movie_theater": "culture.cinema", "library": "culture.library", "cultural_center": "culture.arts_centre",
        "historical_landmark": "historic", "monument": "landmark.monument", "tourist_attraction": "landmark.attraction",
        "observation_deck": "landmark.viewpoint",
        "church": "religious.church", "mosque": "religious.mosque", "synagogue": "religious.synagogue",
        "hindu_temple": "religious.temple", "place_of_worship": "religious",
        "park": "nature.park", "national_park": "nature.park", "state_park": "nature.park", "hiking_area": "nature",
        "garden": "nature.garden", "botanical_garden": "nature.garden",
        "beach": "water.beach", "marina": "water.marina",
        "zoo": "activity.zoo", "amusement_park": "activity.amusement_park", "aquarium": "activity.aquarium",
        "casino": "activity.casino", "water_park": "activity.water_park", "gym": "activity.fitness",
        "stadium": "activity.stadium", "golf_course": "activity.golf", "bowling_alley": "activity",
        "shopping_mall": "shopping.mall", "supermarket": "shopping.supermarket", "grocery_store": "shopping.supermarket",
        "convenience_store": "shopping.convenience", "department_store": "shopping.department_store",
        "book_store": "shopping.books", "clothing_store": "shopping.clothes", "jewelry_store": "shopping.jewelry",
        "market": "shopping.market", "store": "shopping", "gift_shop": "shopping.gift",
        "airport": "transport.airport", "train_station": "transport.station", "subway_station": "transport.station",
        "transit_station": "transport.station", "light_rail_station": "transport.station",
        "bus_station": "transport.bus_station", "ferry_terminal": "transport.ferry", "car_rental": "transport.car_rental",
        "parking": "transport.parking", "taxi_stand": "transport.taxi",
        "visitor_center": "service.tourist_information", "tourist_information_center": "service.tourist_information",
        "hospital": "service.hospital", "pharmacy": "service.pharmacy", "atm": "service.atm", "bank": "service.bank",
        "gas_station": "service.fuel", "post_office": "service.post_office", "police": "service.police",
        "locality": "city",
    ]

    /// Google types → categories, primary type first; `*_restaurant` and `*_store` by suffix.
    static func fromGoogle(primary: String?, types: [String]) -> [Category] {
        unique(
            ([primary].compactMap { $0 } + types).compactMap { type in
                if let mapped = google[type] { return mapped }
                if type.hasSuffix("_restaurant") { return "food.restaurant" }
                if type.hasSuffix("_store") || type.hasSuffix("_shop") { return "shopping" }
                return nil
            })
    }

    /// Google types within `categories`, at most `limit` (searchNearby takes 50, searchText 1),
    /// most general first so that one type still covers the most.
    static func googleTypes(for categories: [Category], limit: Int = 50) -> [String] {
        reverse(google.filter { !googleResponseOnly.contains($0.key) }, categories, limit: limit, preferred: googleRepresentative)
    }

    /// The one type that best stands for a top-level category when only one may be sent.
    static let googleRepresentative: [String: String] = [
        "food": "restaurant", "drink": "bar", "lodging": "lodging", "culture": "museum", "historic": "historical_landmark",
        "landmark": "tourist_attraction", "nature": "park", "water": "beach", "activity": "amusement_park",
        "shopping": "shopping_mall", "transport": "transit_station", "religious": "church", "service": "hospital",
    ]

    /// Types that appear in answers but that a request may not filter by (Table B).
    static let googleResponseOnly: Set<String> = ["food", "store", "locality", "place_of_worship", "establishment"]

    // MARK: Yelp aliases

    static let yelp: [String: String] = [
        "restaurants": "food.restaurant", "food": "food", "coffee": "food.cafe", "cafes": "food.cafe",
        "coffeeroasteries": "food.cafe", "tea": "food.cafe", "bakeries": "food.bakery",
        "desserts": "food.dessert", "icecream": "food.dessert", "hotdogs": "food.fast_food", "foodtrucks": "food.fast_food",
        "bars": "drink.bar", "wine_bars": "drink.bar", "cocktailbars": "drink.bar", "beerbar": "drink.bar",
        "pubs": "drink.pub", "danceclubs": "drink.nightclub", "nightlife": "drink", "breweries": "drink.brewery",
        "wineries": "drink.winery", "juicebars": "drink",
        "hotels": "lodging.hotel", "hostels": "lodging.hostel", "bedbreakfast": "lodging.guest_house",
        "campgrounds": "lodging.camp_site", "resorts": "lodging.hotel",
        "museums": "culture.museum", "galleries": "culture.gallery", "theater": "culture.theatre",
        "movietheaters": "culture.cinema", "arts": "culture", "landmarks": "landmark", "tours": "landmark.attraction",
        "churches": "religious.church", "religiousorgs": "religious",
        "parks": "nature.park", "hiking": "nature", "gardens": "nature.garden", "beaches": "water.beach",
        "lakes": "water.lake", "zoos": "activity.zoo", "amusementparks": "activity.amusement_park",
        "aquariums": "activity.aquarium", "active": "activity", "gyms": "activity.fitness",
        "shopping": "shopping", "shoppingcenters": "shopping.mall", "grocery": "shopping.supermarket",
        "bookstores": "shopping.books", "deptstores": "shopping.department_store",
        "airports": "transport.airport", "trainstations": "transport.station", "busstations": "transport.bus_station",
        "transport": "transport",
    ]

    /// Cuisine aliases whose parent is `restaurants` (search answers carry no parents).
    static let yelpCuisines: Set<String> = [
        "italian", "pizza", "sushi", "japanese", "chinese", "mexican", "french", "thai", "indpak", "burgers",
        "newamerican", "tradamerican", "seafood", "steak", "vietnamese", "korean", "mediterranean", "greek",
        "spanish", "tapas", "tapasmallplates", "ramen", "vegan", "vegetarian", "breakfast_brunch", "sandwiches",
        "delis", "salad", "bbq", "noodles", "asianfusion", "african", "caribbean", "latin", "middleeastern",
        "turkish", "lebanese", "german", "british", "irish", "portuguese", "brasseries", "bistros", "diners",
        "dimsum", "hotpot", "gastropubs", "soup", "chicken_wings", "halal", "kosher", "peruvian", "ethiopian",
    ]

    static func fromYelp(_ aliases: [(alias: String, title: String?)]) -> [Category] {
        unique(
            aliases.compactMap { alias, title in
                if let mapped = yelp[alias] { return mapped }
                if yelpCuisines.contains(alias) { return "food.restaurant" }
                return title.flatMap(fromLabel)
            })
    }

    static func yelpAliases(for categories: [Category], limit: Int = 20) -> [String] {
        reverse(yelp, categories, limit: limit, preferred: [:])
    }

    // MARK: Foursquare

    /// v3 numeric top-level ranges (10000 Arts & Entertainment … 19000 Travel & Transportation).
    static let foursquareRanges: [Int: String] = [
        10000: "culture", 11000: "service", 12000: "service", 13000: "food", 15000: "service.health",
        16000: "landmark", 17000: "shopping", 18000: "activity", 19000: "transport",
    ]

    /// Foursquare categories: the label's words first (they hold for both API generations),
    /// then the numeric range (v3 only). Leaf ids are never trusted (providers.md §6).
    static func fromFoursquare(_ categories: [(id: String, label: String?)]) -> [Category] {
        unique(
            categories.compactMap { id, label in
                if let label, let mapped = fromLabel(label) { return mapped }
                if let number = Int(id) { return foursquareRanges[number / 1000 * 1000] }
                return nil
            })
    }

    /// v3 numeric ids for a filter: the top-level ranges within the categories.
    static func foursquareIDs(for categories: [Category]) -> [String] {
        let top: [String: Int] = [
            "culture": 10000, "food": 13000, "drink": 13003, "landmark": 16000, "nature": 16000,
            "water": 16000, "historic": 16000, "shopping": 17000, "activity": 18000,
            "transport": 19000, "lodging": 19014, "service": 11000,
        ]
        return deduplicated(categories.compactMap { top[$0.topLevel.identifier].map(String.init) })
    }

    // MARK: HERE

    /// `LLL-MMMM-NNNN` prefixes, most specific first.
    static let here: [(prefix: String, category: String)] = [
        ("100-1000", "food.restaurant"), ("100-1100", "food.cafe"), ("100", "food"),
        ("200-2000", "drink.bar"), ("200-2200", "culture"), ("200", "activity"),
        ("300-3000-0350", "drink.brewery"), ("300-3000-0351", "drink.brewery"), ("300-3000-0065", "drink.winery"),
        ("300-3000-0025", "historic"), ("300-3000-0030", "landmark.monument"), ("300-3000-0024", "culture"),
        ("300-3000-0023", "landmark.attraction"), ("300-3000", "landmark.attraction"),
        ("300-3100", "culture.museum"), ("300-3200", "religious"), ("300", "landmark"),
        ("350-3500", "water"), ("350", "nature"),
        ("400-4000-4581", "transport.airport"), ("400-4000-4580", "transport.airport"), ("400-4100-0035", "transport.station"),
        ("400-4100-0036", "transport.bus_station"), ("400", "transport"),
        ("500-5000", "lodging.hotel"), ("500-5100", "lodging.camp_site"), ("500", "lodging"),
        ("550-5510-0205", "water.beach"), ("550-5510", "nature.park"), ("550-5520", "activity"), ("550", "nature"),
        ("600-6100", "shopping.mall"), ("600-6300", "shopping.supermarket"), ("600", "shopping"),
        ("700", "service"), ("800", "service"),
    ]

    static func fromHERE(_ ids: [String]) -> [Category] {
        unique(ids.compactMap { id in here.first { id.hasPrefix($0.prefix) }?.category })
    }

    /// HERE ids (`browse`'s `categories`, prefixes match whole levels) for a filter.
    static func hereIDs(for categories: [Category]) -> [String] {
        deduplicated(
            categories.flatMap { wanted in
                here.filter { rule in
                    let category = Category(trustedIdentifier: rule.category)
                    return category.isWithin(wanted)
                }.map { rule in
                    // Browse takes full ids; a level prefix stands for the whole level.
                    let parts = rule.prefix.split(separator: "-")
                    return parts.count == 3 ? rule.prefix : parts.count == 2 ? rule.prefix + "-0000" : rule.prefix + "-0000-0000"
                }
            })
    }

    // MARK: Labels

    /// Words in a provider's English label, first match wins.
    static let labelWords: [(words: [String], category: String)] = [
        (["coffee", "café", "cafe", "tea room", "tea house"], "food.cafe"),
        (["bakery"], "food.bakery"), (["dessert", "ice cream", "gelato"], "food.dessert"),
        (["fast food"], "food.fast_food"), (["brewery"], "drink.brewery"), (["winery"], "drink.winery"),
        (["nightclub", "night club"], "drink.nightclub"), (["pub"], "drink.pub"),
        (["bar", "lounge"], "drink.bar"),
        (["restaurant", "pizzeria", "pizza", "diner", "steakhouse", "bistro", "sushi", "food", "eatery"], "food.restaurant"),
        (["hostel"], "lodging.hostel"), (["motel"], "lodging.motel"), (["hotel", "resort"], "lodging.hotel"),
        (["bed and breakfast", "guest house"], "lodging.guest_house"), (["campground"], "lodging.camp_site"),
        (["museum"], "culture.museum"), (["art gallery", "gallery"], "culture.gallery"),
        (["theater", "theatre", "opera"], "culture.theatre"), (["cinema", "movie"], "culture.cinema"),
        (["castle"], "historic.castle"), (["historic", "memorial"], "historic"), (["monument"], "landmark.monument"),
        (["scenic lookout", "viewpoint"], "landmark.viewpoint"), (["landmark"], "landmark"),
        (["church", "cathedral"], "religious.church"), (["mosque"], "religious.mosque"), (["temple"], "religious.temple"),
        (["beach"], "water.beach"), (["lake"], "water.lake"), (["waterfall"], "water.waterfall"),
        (["garden"], "nature.garden"), (["park"], "nature.park"), (["trail", "mountain"], "nature"),
        (["zoo"], "activity.zoo"), (["aquarium"], "activity.aquarium"), (["gym", "fitness"], "activity.fitness"),
        (["airport"], "transport.airport"), (["train station", "rail station", "metro station", "subway"], "transport.station"),
        (["bus station"], "transport.bus_station"),
        (["supermarket", "grocery"], "shopping.supermarket"), (["mall", "shopping center"], "shopping.mall"),
        (["market"], "shopping.market"), (["bookstore"], "shopping.books"), (["store", "shop", "boutique"], "shopping"),
    ]

    static func fromLabel(_ label: String) -> String? {
        let words = " " + label.lowercased().map { $0.isLetter ? $0 : " " }.reduce(into: "") { $0.append($1) } + " "
        return labelWords.first { rule in rule.words.contains { words.contains(" \($0) ") || words.contains(" \($0)s ") } }?.category
    }

    // MARK: Helpers

    /// The categories named, each once, in order.
    private static func unique(_ identifiers: [String]) -> [Category] {
        deduplicated(identifiers).map(Category.init(trustedIdentifier:))
    }

    private static func deduplicated(_ identifiers: [String]) -> [String] {
        var seen = Set<String>()
        return identifiers.filter { seen.insert($0).inserted }
    }

    /// The provider ids within `categories`: first those that stand for a wanted category (its
    /// representative, or an id named like its last segment: `park` for `nature.park`), then
    /// the most general, then by name, for a stable request.
    private static func reverse(
        _ table: [String: String], _ categories: [Category], limit: Int,
        preferred: [String: String]
    ) -> [String] {
        let matches = table.filter { _, identifier in
            categories.contains { Category(trustedIdentifier: identifier).isWithin($0) }
        }
        let standing = Set(
            categories.flatMap { category in
                [preferred[category.identifier], category.identifier.split(separator: ".").last.map(String.init)].compactMap { $0 }
            })
        func key(_ entry: (key: String, value: String)) -> (Int, Int, String) {
            (standing.contains(entry.key) ? 0 : 1, entry.value.split(separator: ".").count, entry.key)
        }
        return matches.sorted { key($0) < key($1) }.prefix(limit).map(\.key)
    }
}
