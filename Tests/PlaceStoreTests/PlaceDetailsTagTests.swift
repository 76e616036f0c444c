import Foundation
import GeoCore
import PlaceModel
import PlaceQuery
import Testing

/// The stored record's field tags are the on-disk format: every index written before reads
/// only while each tag keeps its number.
struct PlaceDetailsTagTests {
    @Test func everyTagKeepsItsNumber() {
        let expected: [(PlaceDetailsCodec.Tag, UInt8)] = [
            (.phone, 1), (.website, 2), (.street, 3), (.locality, 4), (.region, 5), (.postcode, 6), (.formattedAddress, 7),
            (.hoursText, 8), (.hoursPeriods, 9), (.photos, 10), (.tags, 11), (.gemOwner, 12), (.gemVisibility, 13),
            (.sourceID, 14), (.fetchedAt, 15), (.importedAt, 16), (.ratingCount, 17), (.ratingScale, 18),
            (.categories, 19), (.rating, 20), (.priceLevel, 21), (.countryCode, 22), (.source, 23), (.regionCountry, 24),
            (.continent, 25), (.timeZone, 26), (.weeklyHours, 27), (.gemListing, 28), (.gemDescription, 29),
            (.gemCreatedAt, 30), (.gemUpdatedAt, 31),
        ]
        for (tag, number) in expected { #expect(tag.rawValue == number, "\(tag)") }
        #expect(PlaceDetailsCodec.Tag.allCases.count == expected.count, "a new tag is pinned here too")
        #expect(Set(PlaceDetailsCodec.Tag.allCases.map(\.rawValue)).count == expected.count, "no number is used twice")
    }

    @Test func aRecordReadsBackAsThePlaceItWasWrittenFrom() throws {
        let id = try PlaceID(source: "osm", localID: "n42")
        let place = Place(
            id: id, name: "Café de la Paix", coordinate: try Coordinate(latitude: 48.8708, longitude: 2.3317),
            categories: [try Category("food.cafe")], phone: "+33 1 40 07 36 36", website: "https://example.org/cafe",
            provenance: Provenance(source: "osm", sourceID: "n42"), tags: ["cuisine": "french", "wikidata": "Q1025089"],
            region: PlaceRegion(countryCode: "FR", continent: .europe), timeZone: "Europe/Paris")
        var bytes: [UInt8] = []
        try PlaceDetailsCodec.encode(place, appendingTo: &bytes)
        let fields = try bytes.withUnsafeBytes { try PlaceDetailsCodec.decode($0, id: id.rawValue) }
        let read = PlaceDetailsCodec.place(id: id, name: place.name, coordinate: place.coordinate, details: fields)
        #expect(read.phone == place.phone && read.website == place.website && read.timeZone == place.timeZone)
        #expect(read.categories == place.categories && read.tags == place.tags)
        #expect(read.region?.countryCode == "FR" && read.region?.continent == .europe)
        #expect(read.provenance.source == "osm" && read.provenance.sourceID == "n42")
    }
}
