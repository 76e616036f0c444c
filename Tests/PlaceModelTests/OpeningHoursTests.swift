import Foundation
import GeoCore
import PlaceModel
import Testing

/// OSM `opening_hours` values read into weekly periods, and "open at" in a time zone.
@Suite struct OpeningHoursTests {
    /// Monday = 0 … Sunday = 6, minutes from midnight.
    private func minute(_ day: Int, _ hour: Int, _ minute: Int = 0) -> Int { day * 1440 + hour * 60 + minute }

    @Test func commonFormsAreRead() throws {
        let weekdays = OpeningHours(osm: "Mo-Fr 09:00-18:00; Sa 10:00-14:00")
        #expect(weekdays.periods.count == 6)
        #expect(weekdays.isOpen(atMinuteOfWeek: minute(0, 9)) == true)
        #expect(weekdays.isOpen(atMinuteOfWeek: minute(0, 18)) == false, "the closing minute is closed")
        #expect(weekdays.isOpen(atMinuteOfWeek: minute(5, 13, 59)) == true)
        #expect(weekdays.isOpen(atMinuteOfWeek: minute(6, 12)) == false)

        let always = OpeningHours(osm: "24/7")
        #expect((0..<10_080).allSatisfy { always.isOpen(atMinuteOfWeek: $0) == true })

        let lunch = OpeningHours(osm: "Mo,We,Fr 09:00-12:00, 13:30-18:00; Su off")
        #expect(lunch.isOpen(atMinuteOfWeek: minute(2, 12, 30)) == false)
        #expect(lunch.isOpen(atMinuteOfWeek: minute(2, 13, 30)) == true)
        #expect(lunch.isOpen(atMinuteOfWeek: minute(1, 10)) == false)

        // A later rule replaces the days it names; a range past midnight closes the next day,
        // and Sunday night runs into Monday morning.
        let bar = OpeningHours(osm: "Mo-Su 18:00-02:00; Tu off")
        #expect(bar.isOpen(atMinuteOfWeek: minute(6, 23)) == true)
        #expect(bar.isOpen(atMinuteOfWeek: minute(0, 1, 30)) == true, "Sunday's night, on Monday morning")
        #expect(bar.isOpen(atMinuteOfWeek: minute(1, 19)) == false, "Tuesday is off")
        #expect(bar.isOpen(atMinuteOfWeek: minute(2, 1)) == false, "Tuesday is off, so nothing runs into Wednesday")

        let wrapped = OpeningHours(osm: "Sa-Mo 10:00-24:00")
        #expect(wrapped.isOpen(atMinuteOfWeek: minute(0, 23, 59)) == true)
        #expect(wrapped.isOpen(atMinuteOfWeek: minute(1, 10)) == false)

        #expect(OpeningHours(osm: "Mo-Fr 08:00-17:00; PH off").periods.count == 5, "holiday rules are skipped")
        #expect(OpeningHours(osm: "off").periods.isEmpty)
    }

    @Test(
        "Forms not read leave no periods, never a guess",
        arguments: [
            "Jan-Mar Mo-Fr 09:00-17:00", "Mo-Fr 09:00+", "sunrise-sunset", "Mo[1] 10:00-12:00", "\"by appointment\"",
            "Mo-Fr 25:00-26:00", "Mx 09:00-10:00", "", "Mo-Fr", "week 01-10 Mo 09:00-10:00",
        ])
    func unreadFormsHaveNoPeriods(_ text: String) {
        let hours = OpeningHours(osm: text)
        #expect(hours.periods.isEmpty, "\(text)")
        #expect(hours.text == text)
        #expect(hours.isOpen(atMinuteOfWeek: 600) == nil)
    }

    @Test func openAtReadsTheHoursInThePlacesTimeZone() throws {
        let coordinate = try Coordinate(latitude: 35.68, longitude: 139.69)
        var shop = Place(
            id: try PlaceID("osm:1"), name: "Shop", coordinate: coordinate,
            openingHours: OpeningHours(osm: "Mo-Fr 09:00-18:00"), timeZone: "Asia/Tokyo")
        // Monday 2026-11-23 01:00Z is 10:00 in Tokyo (open) and 02:00 in Paris.
        let instant = try #require(ISO8601DateFormatter().date(from: "2026-11-23T01:00:00Z"))
        #expect(shop.isOpen(at: instant) == true)
        shop.timeZone = "Europe/Paris"
        #expect(shop.isOpen(at: instant) == false)
        shop.timeZone = "Not/AZone"
        #expect(shop.isOpen(at: instant) == nil)
        shop.timeZone = nil
        #expect(shop.isOpen(at: instant) == nil)
        // Daylight saving: 2026-07-06 (Monday) 07:30Z is 09:30 in Paris (UTC+2).
        shop.timeZone = "Europe/Paris"
        #expect(shop.isOpen(at: try #require(ISO8601DateFormatter().date(from: "2026-07-06T07:30:00Z"))) == true)
        #expect(shop.isOpen(at: try #require(ISO8601DateFormatter().date(from: "2026-12-07T07:30:00Z"))) == false, "08:30 in winter")
    }
}
