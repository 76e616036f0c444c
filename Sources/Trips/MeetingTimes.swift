import Foundation
import PlaceQuery

/// Daily hours in which a meeting may take place, in local wall-clock minutes.
public struct DailyHours: Sendable, Hashable {
    public var startMinute: Int
    public var endMinute: Int

    /// Parses `HH:MM-HH:MM` (the end after the start; `24:00` for midnight at the end).
    public init?(_ text: String) {
        let halves = text.split(separator: "-")
        func minutes(_ part: Substring) -> Int? {
            let pieces = part.split(separator: ":")
            guard pieces.count == 2, pieces[0].count == 2, pieces[1].count == 2,
                let hours = Int(pieces[0]), let minutes = Int(pieces[1]), (0...24).contains(hours), (0..<60).contains(minutes),
                hours * 60 + minutes <= 1_440
            else { return nil }
            return hours * 60 + minutes
        }
        guard halves.count == 2, let start = minutes(halves[0]), let end = minutes(halves[1]), start < end else { return nil }
        startMinute = start
        endMinute = end
    }

    public init(startMinute: Int, endMinute: Int) {
        self.startMinute = startMinute
        self.endMinute = endMinute
    }

    /// Every day's hours that meet `[from, to)`, clipped to it, in `zone`. Each day's start and
    /// end are that day's wall-clock times, so a daylight-saving change shortens or lengthens
    /// the day it happens on.
    public func windows(from: Date, to: Date, in zone: TimeZone) -> [BusyInterval] {
        guard from < to else { return [] }
        // A day before and after, so hours that straddle the ends in any zone are seen.
        var date = LocalDate(from, in: zone).adding(days: 0)
        let last = LocalDate(to, in: zone)
        var windows: [BusyInterval] = []
        while date <= last {
            if let start = date.instant(minute: startMinute, in: zone),
                let end = endMinute == 1_440
                    ? date.adding(days: 1).instant(minute: 0, in: zone) : date.instant(minute: endMinute, in: zone)
            {
                let clipped = BusyInterval(start: max(start, from), end: min(end, to))
                if clipped.start < clipped.end { windows.append(clipped) }
            }
            date = date.adding(days: 1)
        }
        return windows
    }
}

/// A time a group could meet: who is free for all of it, and who is not.
public struct MeetingSlot: Sendable, Hashable {
    public var start: Date
    public var end: Date
    /// Sorted usernames.
    public var free: [String]
    public var busy: [String]
}

/// Finds meeting times: a sweep over each member's sorted busy intervals.
///
/// A slot is `duration` long, inside one day's hours. Its candidate starts are the starts of
/// each day's hours and the ends of busy intervals (only there can someone become free); every
/// earliest start of a set of free people is among them. A member is free for a slot when no
/// busy interval of theirs overlaps it. The answer puts slots where everyone is free first,
/// then the rest by how many are free, earliest first; a candidate with the same people free
/// as the slot it overlaps just before it is left out.
public enum MeetingTimes {
    public static func find(
        members: [String], busy: [String: [BusyInterval]], duration: TimeInterval,
        windows: [BusyInterval], limit: Int
    ) -> [MeetingSlot] {
        let names = members.sorted()
        // Each member's busy time, merged and sorted: the sweep advances one cursor per member.
        let merged = names.map { merge(busy[$0] ?? []) }
        var candidates: [(start: Date, windowEnd: Date)] = []
        for window in windows {
            candidates.append((window.start, window.end))
        }
        var windowIndex = 0
        let sortedWindows = windows.sorted { $0.start < $1.start }
        for end in merged.flatMap({ $0.map(\.end) }).sorted() {
            while windowIndex < sortedWindows.count && sortedWindows[windowIndex].end <= end { windowIndex += 1 }
            guard windowIndex < sortedWindows.count, sortedWindows[windowIndex].start < end else { continue }
            candidates.append((end, sortedWindows[windowIndex].end))
        }
        candidates.sort { $0.start < $1.start }
        var cursors = [Int](repeating: 0, count: names.count)
        var slots: [MeetingSlot] = []
        var previous: MeetingSlot?
        for candidate in candidates {
            let end = candidate.start.addingTimeInterval(duration)
            guard end <= candidate.windowEnd else { continue }
            var free: [String] = [], occupied: [String] = []
            for member in names.indices {
                let intervals = merged[member]
                // Skip intervals that end at or before the start: they never matter again.
                while cursors[member] < intervals.count && intervals[cursors[member]].end <= candidate.start { cursors[member] += 1 }
                if cursors[member] < intervals.count && intervals[cursors[member]].start < end {
                    occupied.append(names[member])
                } else {
                    free.append(names[member])
                }
            }
            let slot = MeetingSlot(start: candidate.start, end: end, free: free, busy: occupied)
            if let previous, previous.free == free, previous.end > slot.start { continue }
            if slot.start == previous?.start { continue }
            previous = slot
            slots.append(slot)
        }
        slots.sort { ($0.free.count, $1.start) > ($1.free.count, $0.start) }
        return Array(slots.prefix(limit))
    }

    /// Sorted, overlapping and touching intervals joined.
    static func merge(_ intervals: [BusyInterval]) -> [BusyInterval] {
        var result: [BusyInterval] = []
        for interval in intervals.filter({ $0.start < $0.end }).sorted(by: { $0.start < $1.start }) {
            if let last = result.last, interval.start <= last.end {
                result[result.count - 1].end = max(last.end, interval.end)
            } else {
                result.append(interval)
            }
        }
        return result
    }
}
