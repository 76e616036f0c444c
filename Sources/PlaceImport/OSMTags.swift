import Foundation
import GeoCore
import PlaceModel

/// OpenStreetMap tags → the common taxonomy, and which tags a place keeps.
///
/// An element is a place when it has a name (`name`, else `name:en`) and a *POI tag*: any value
/// of `amenity`, `tourism`, `historic`, `shop`, `leisure`, `craft` or `office`, and the values
/// the table lists of `natural`, `waterway`, `aeroway`, `railway` and `place` (a peak, not a
/// tree). The name is what keeps street furniture out: benches and waste baskets have none.
/// Categories come from the table value by value; a value the table does not list falls back to
/// its key's default (`shop=*` → `shopping`), so no POI is left without a category.
public enum OSMTags {
    /// Keys that make an element a place, in the order their categories are listed.
    public static let poiKeys = [
        "amenity", "tourism", "historic", "shop", "leisure", "natural", "waterway", "aeroway",
        "railway", "place", "craft", "office",
    ]

    /// Keys whose unlisted values are not places (`natural=tree`, `railway=rail`).
    static let listedValuesOnly: Set<String> = ["natural", "waterway", "aeroway", "railway", "place"]

    /// The fallback category of a key for values the table does not list.
    static let keyDefaults: [String: String] = [
        "amenity": "service", "tourism": "landmark", "historic": "historic", "shop": "shopping",
        "leisure": "activity", "craft": "service.craft", "office": "service.office",
    ]

    /// `key=value` → category.
    static let table: [String: String] = [
        // food and drink
        "amenity=restaurant": "food.restaurant", "amenity=fast_food": "food.fast_food", "amenity=cafe": "food.cafe",
        "amenity=ice_cream": "food.dessert", "amenity=food_court": "food", "shop=bakery": "food.bakery",
        "shop=pastry": "food.bakery", "shop=confectionery": "food.dessert", "amenity=bar": "drink.bar",
        "amenity=pub": "drink.pub", "amenity=biergarten": "drink.beer_garden", "amenity=nightclub": "drink.nightclub",
        "craft=brewery": "drink.brewery", "craft=winery": "drink.winery", "shop=wine": "drink.wine_shop",
        // lodging
        "tourism=hotel": "lodging.hotel", "tourism=motel": "lodging.motel", "tourism=hostel": "lodging.hostel",
        "tourism=guest_house": "lodging.guest_house", "tourism=apartment": "lodging.apartment",
        "tourism=chalet": "lodging.chalet", "tourism=camp_site": "lodging.camp_site",
        "tourism=caravan_site": "lodging.camp_site", "tourism=alpine_hut": "lodging.hut",
        "tourism=wilderness_hut": "lodging.hut",
        // culture
        "tourism=museum": "culture.museum", "tourism=gallery": "culture.gallery", "tourism=artwork": "culture.artwork",
        "amenity=theatre": "culture.theatre", "amenity=cinema": "culture.cinema", "amenity=arts_centre": "culture.arts_centre",
        "amenity=library": "culture.library", "amenity=concert_hall": "culture.concert_hall",
        // historic
        "historic=castle": "historic.castle", "historic=fort": "historic.fort", "historic=ruins": "historic.ruins",
        "historic=palace": "historic.palace", "historic=manor": "historic.manor", "historic=memorial": "historic.memorial",
        "historic=archaeological_site": "historic.archaeological_site", "historic=city_gate": "historic.city_gate",
        "historic=monument": "landmark.monument", "historic=church": "religious.church",
        "historic=wayside_cross": "religious.shrine", "historic=wayside_shrine": "religious.shrine",
        // landmarks
        "tourism=attraction": "landmark.attraction", "tourism=viewpoint": "landmark.viewpoint",
        "amenity=fountain": "landmark.fountain", "tourism=information": "service.tourist_information",
        // religious
        "amenity=place_of_worship": "religious", "amenity=monastery": "religious.monastery",
        "amenity=grave_yard": "religious.cemetery",
        // nature and water
        "leisure=park": "nature.park", "leisure=garden": "nature.garden", "leisure=nature_reserve": "nature.reserve",
        "tourism=picnic_site": "nature.picnic_site", "natural=peak": "nature.peak", "natural=volcano": "nature.volcano",
        "natural=saddle": "nature.pass", "natural=cave_entrance": "nature.cave", "natural=glacier": "nature.glacier",
        "natural=cliff": "nature.cliff", "natural=arch": "nature.arch", "natural=cape": "nature.cape",
        "natural=beach": "water.beach", "natural=spring": "water.spring", "natural=hot_spring": "water.hot_spring",
        "natural=geyser": "water.geyser", "natural=waterfall": "water.waterfall", "natural=bay": "water.bay",
        "waterway=waterfall": "water.waterfall", "leisure=beach_resort": "water.beach", "leisure=marina": "water.marina",
        // activity
        "tourism=zoo": "activity.zoo", "tourism=aquarium": "activity.aquarium", "tourism=theme_park": "activity.amusement_park",
        "leisure=stadium": "activity.stadium", "leisure=sports_centre": "activity.sports_centre",
        "leisure=swimming_pool": "activity.swimming", "leisure=water_park": "activity.water_park",
        "leisure=playground": "activity.playground", "leisure=pitch": "activity.sports_pitch", "leisure=golf_course": "activity.golf",
        "leisure=fitness_centre": "activity.fitness", "amenity=casino": "activity.casino",
        // shopping
        "shop=supermarket": "shopping.supermarket", "shop=mall": "shopping.mall", "shop=department_store": "shopping.department_store",
        "shop=convenience": "shopping.convenience", "shop=clothes": "shopping.clothes", "shop=gift": "shopping.gift",
        "shop=books": "shopping.books", "shop=jewelry": "shopping.jewelry", "amenity=marketplace": "shopping.market",
        // transport
        "aeroway=aerodrome": "transport.airport", "railway=station": "transport.station", "railway=halt": "transport.station",
        "amenity=bus_station": "transport.bus_station", "amenity=ferry_terminal": "transport.ferry",
        "amenity=parking": "transport.parking", "amenity=parking_entrance": "transport.parking", "amenity=taxi": "transport.taxi",
        "amenity=car_rental": "transport.car_rental",
        "amenity=bicycle_rental": "transport.bicycle_rental", "amenity=fuel": "service.fuel",
        "amenity=charging_station": "service.charging_station",
        // services
        "amenity=hospital": "service.hospital", "amenity=clinic": "service.health", "amenity=doctors": "service.health",
        "amenity=dentist": "service.health", "amenity=pharmacy": "service.pharmacy", "amenity=school": "service.school",
        "amenity=university": "service.university", "amenity=college": "service.university", "amenity=bank": "service.bank",
        "amenity=atm": "service.atm", "amenity=post_office": "service.post_office", "amenity=police": "service.police",
        "amenity=townhall": "service.townhall", "amenity=toilets": "service.toilets",
        "amenity=drinking_water": "service.drinking_water",
        // settlements
        "place=city": "city", "place=town": "city.town", "place=village": "city.village",
        "place=island": "nature.island", "place=islet": "nature.island",
    ]

    /// `amenity=place_of_worship` refined by `religion`.
    static let religions: [String: String] = [
        "christian": "religious.church", "muslim": "religious.mosque", "jewish": "religious.synagogue",
        "buddhist": "religious.temple", "hindu": "religious.temple", "shinto": "religious.shrine",
    ]

    /// Keys kept as tags beside the POI keys themselves; `name:*`, `diet:*` and `addr:*` are kept
    /// by prefix (`addr:*` also fills the address).
    static let keptKeys: Set<String> = [
        "cuisine", "wikidata", "wikipedia", "wheelchair", "religion", "denomination", "brand", "operator",
        "stars", "ele", "population", "capital", "iata", "icao", "email", "contact:email", "internet_access",
        "outdoor_seating", "takeaway", "fee", "description", "heritage", "water", "sport",
    ]
    static let keptPrefixes = ["name:", "diet:", "addr:", "alt_name", "old_name", "official_name"]
    /// Keys read into fields rather than kept as tags (with every `contact:*`).
    static let fieldKeys: Set<String> = ["name", "website", "url", "phone", "opening_hours"]
    private static let poiKeySet = Set(poiKeys)

    /// The categories of an element with these tags, most specific key first; empty when the
    /// element is not a place.
    public static func categories(_ tags: [String: String]) -> [Category] {
        var result: [Category] = []
        for key in poiKeys {
            guard let value = tags[key], !value.isEmpty, value != "no" else { continue }
            var identifier = table["\(key)=\(value)"]
            if key == "amenity" && value == "place_of_worship", let religion = tags["religion"] {
                identifier = religions[religion] ?? identifier
            }
            if identifier == nil && !listedValuesOnly.contains(key) { identifier = keyDefaults[key] }
            guard let identifier else { continue }
            let category = Category(trustedIdentifier: identifier)
            if !result.contains(category) { result.append(category) }
        }
        return result
    }

    /// Whether a key stays on the place as a tag.
    static func isKeptAsTag(_ key: String) -> Bool {
        poiKeySet.contains(key) || keptKeys.contains(key) || keptPrefixes.contains(where: key.hasPrefix)
    }

    /// Whether a key is worth reading at all: lets the reader skip the tags of most elements
    /// without building a dictionary.
    static func isInteresting(key: String) -> Bool {
        isKeptAsTag(key) || fieldKeys.contains(key) || key.hasPrefix("contact:")
    }

    /// What an element with these tags is.
    enum Verdict: Equatable {
        /// No POI tag: not a place, not counted.
        case notAPOI
        /// A POI without a name: left out, and counted as skipped.
        case unnamed
        case place(name: String, categories: [Category])
    }

    /// Decides whether an element is a place: it needs a POI tag and a name (`name`, else
    /// `name:en`).
    static func verdict(_ tags: [String: String]) -> Verdict {
        let categories = categories(tags)
        guard !categories.isEmpty else { return .notAPOI }
        guard let name = (tags["name"] ?? tags["name:en"]).map(\.trimmedWhitespace), !name.isEmpty else { return .unnamed }
        return .place(name: name, categories: categories)
    }

    /// The place an element stands for, once ``verdict(_:)`` has found its name and categories.
    /// - Parameter kind: `n`, `w` or `r`; the id becomes `osm:<kind><id>`.
    static func place(
        kind: Character, id: Int64, tags: [String: String], name: String, categories: [Category],
        coordinate: Coordinate, importedAt: Date
    ) -> Place {
        let address = Address(
            street: [tags["addr:housenumber"], tags["addr:street"] ?? tags["addr:place"]].compactMap { $0 }.joined(separator: " ").nilIfEmpty,
            locality: tags["addr:city"], region: tags["addr:province"] ?? tags["addr:state"],
            postcode: tags["addr:postcode"], countryCode: tags["addr:country"]?.uppercased())
        let localID = "\(kind)\(id)"
        return Place(
            id: PlaceID(trustedRawValue: "osm:\(localID)"), name: name, coordinate: coordinate, categories: categories,
            address: address.isEmpty ? nil : address,
            phone: tags["phone"] ?? tags["contact:phone"],
            website: tags["website"] ?? tags["contact:website"] ?? tags["url"],
            openingHours: tags["opening_hours"].map { OpeningHours(osm: $0) },
            provenance: Provenance(source: "osm", sourceID: localID, importedAt: importedAt),
            tags: tags.filter { isKeptAsTag($0.key) })
    }
}

extension String {
    var nilIfEmpty: String? { isEmpty ? nil : self }
}
