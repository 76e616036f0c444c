import Foundation
import GeoCore
import PlaceQuery
import Testing

@testable import Trips

/// Meeting times against brute force on random calendars (minute by minute), across a
/// daylight-saving change.
@Suite struct MeetingTimesTests {
    static let paris = TimeZone(identifier: "Europe/Paris")!

    /// Brute force: who is free for all of `[t, t + duration)`.
    static func freeAt(_ t: Date, duration: TimeInterval, members: [String], busy: [String: [BusyInterval]]) -> [String] {
        members.sorted().filter { member in
            !(busy[member] ?? []).contains { $0.start < t.addingTimeInterval(duration) && t < $0.end }
        }
    }

    @Test(arguments: 0..<40)
    func agreesWithBruteForce(seed: Int) throws {
        var random = SplitMix64(seed: UInt64(seed) &+ 99)
        func next(_ bound: Int) -> Int { Int(random.next() % UInt64(bound)) }
        // Five days around the spring change in Paris (2027-03-28, 02:00 → 03:00).
        let from = try #require(LocalDate("2027-03-26")?.instant(minute: 0, in: Self.paris))
        let to = from.addingTimeInterval(5 * 86_400)
        let members = (0..<(2 + next(5))).map { "m\($0)" }
        var busy: [String: [BusyInterval]] = [:]
        for member in members where next(6) != 0 {
            busy[member] = (0..<next(25)).map { _ in
                let start = from.addingTimeInterval(Double(next(5 * 1_440)) * 60)
                return BusyInterval(start: start, end: start.addingTimeInterval(Double(15 + next(300)) * 60))
            }
        }
        let hours = [DailyHours("09:00-22:00")!, DailyHours("00:00-24:00")!, DailyHours("01:30-03:30")!][seed % 3]
        let windows = hours.windows(from: from, to: to, in: Self.paris)
        let duration = Double([30, 60, 120, 45][seed % 4]) * 60
        let slots = MeetingTimes.find(members: members, busy: busy, duration: duration, windows: windows, limit: 100_000)

        // Brute force over every minute of every window.
        var best: [Int: Date] = [:]
        for window in windows {
            var t = window.start
            while t.addingTimeInterval(duration) <= window.end {
                let count = Self.freeAt(t, duration: duration, members: members, busy: busy).count
                for k in 0...count where best[k].map({ t < $0 }) ?? true { best[k] = t }
                t = t.addingTimeInterval(60)
            }
        }
        for slot in slots {
            #expect(slot.free == Self.freeAt(slot.start, duration: duration, members: members, busy: busy), "free at \(slot.start)")
            #expect(Set(slot.free + slot.busy) == Set(members))
            #expect(windows.contains { $0.start <= slot.start && slot.end <= $0.end }, "inside the daily hours")
        }
        for (k, earliest) in best {
            let found = slots.filter { $0.free.count >= k }.map(\.start).min()
            #expect(found == earliest, "earliest slot with \(k) free: \(String(describing: found)) ≠ \(earliest)")
        }
        // The order: most free first, then earliest.
        #expect(zip(slots, slots.dropFirst()).allSatisfy { ($0.free.count, $1.start) >= ($1.free.count, $0.start) })
    }

    @Test func dailyHoursFollowTheWallClockAcrossADaylightSavingChange() throws {
        let day = try #require(LocalDate("2027-03-28"))
        let from = try #require(day.instant(minute: 0, in: Self.paris))
        let whole = DailyHours("00:00-24:00")!.windows(from: from, to: from.addingTimeInterval(86_400 * 2), in: Self.paris)
        let firstDay: Double = try #require(whole.first).end.timeIntervalSince(whole[0].start)
        #expect(firstDay.rounded() == 82_800.0, "the day of the change has 23 hours")
        let evening = DailyHours("09:00-22:00")!.windows(from: from, to: from.addingTimeInterval(86_400), in: Self.paris)
        let formatter = ISO8601DateFormatter()
        #expect(evening.map { formatter.string(from: $0.start) } == ["2027-03-28T07:00:00Z"], "09:00 CEST is 07:00 UTC")
        #expect(DailyHours("22:00-09:00") == nil && DailyHours("9-17") == nil && DailyHours("08:00-24:30") == nil)
    }

    @Test func everyoneFreeComesFirstAndNamesWhoIsNot() throws {
        let base = Date(timeIntervalSince1970: 1_800_000_000)
        let busy = ["ann": [BusyInterval(start: base, end: base.addingTimeInterval(3_600))]]
        let windows = [BusyInterval(start: base, end: base.addingTimeInterval(4 * 3_600))]
        let slots = MeetingTimes.find(members: ["bob", "ann"], busy: busy, duration: 3_600, windows: windows, limit: 5)
        #expect(
            slots.first
                == MeetingSlot(
                    start: base.addingTimeInterval(3_600), end: base.addingTimeInterval(7_200),
                    free: ["ann", "bob"], busy: []))
        #expect(slots.dropFirst().first == MeetingSlot(start: base, end: base.addingTimeInterval(3_600), free: ["bob"], busy: ["ann"]))
    }
}

/// Busy lists as the stores keep them: written by hand, in the format `JSONEncoder` wrote
/// before, so lists stored either way read back the same.
struct StoredBusyListTests {
    @Test func storedTextReadsAsJSONEncodersAndBack() throws {
        var random = SystemRandomNumberGenerator()
        let list = (0..<200).map { _ in
            let start = Date(timeIntervalSince1970: Double(Int.random(in: 0...4_000_000_000, using: &random)) + [0, 0.5, 0.25].randomElement()!)
            return BusyInterval(start: start, end: start.addingTimeInterval(Double(Int.random(in: 60...86_400, using: &random))))
        }
        let written = BusyInterval.storedText(list)
        #expect(try JSONDecoder().decode([BusyInterval].self, from: Data(written.utf8)) == list)
        let before = String(decoding: try JSONEncoder().encode(list), as: UTF8.self)
        #expect(BusyInterval.list(storedText: before) == list)
        #expect(BusyInterval.list(storedText: written) == list)
        #expect(BusyInterval.list(storedText: "[]") == [])
        #expect(BusyInterval.list(storedText: "[{\"start\":1}]") == nil)
    }
}
