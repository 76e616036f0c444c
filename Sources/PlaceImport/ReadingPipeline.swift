import Foundation
import PlaceModel
import PlaceQuery
import Regions

/// Reads a dump on a thread of its own and hands over batches of encoded places, so that
/// parsing and encoding one batch overlaps SQLite writing the one before (on two cores an
/// import takes about the longer of the two rather than their sum).
///
/// Generic over the store's batch form, so that preparing places for the store (SpatiaLite's
/// flat encoding, say) happens on the reading thread too.
final class ReadingPipeline<Batch: PlaceBatch>: Sendable {
    /// One batch of what the reader read.
    struct Chunk: Sendable {
        var places = Batch()
        /// Records read, places or not.
        var rows = 0
        var rejected = 0
        var skipped = 0
        /// The first rejected records (up to the pipeline's limit over the whole dump).
        var problems: [RowProblem] = []
        /// The reader's share of the file after this batch.
        var progress: Double?
    }

    private let queue = BoundedQueue<Chunk>(capacity: 3)

    /// Starts reading. `source` overrides each place's provenance source; `regions`, when given,
    /// decides each place's country, continent and (when the dump has none) time zone.
    init(reader: any DumpReader, source: String, batchSize: Int, problemsToKeep: Int, regions: RegionLocator? = nil) {
        let box = ReaderBox(reader)
        let queue = self.queue
        let thread = Thread {
            do {
                var kept = 0
                var chunk = Chunk()
                while let record = try box.reader.next() {
                    chunk.rows += 1
                    switch record {
                    case .place(var place):
                        if place.provenance.source != source { place.provenance.source = source }
                        // GeoNames and airport dumps carry the zone as a tag.
                        if place.timeZone == nil, let zone = place.tags["timezone"] { place.timeZone = zone }
                        regions?.annotate(&place)
                        try chunk.places.append(place)
                    case .skipped:
                        chunk.skipped += 1
                    case .rejected(let problem):
                        chunk.rejected += 1
                        if kept < problemsToKeep {
                            chunk.problems.append(problem)
                            kept += 1
                        }
                    }
                    if chunk.rows >= batchSize {
                        chunk.progress = box.reader.progress
                        guard queue.push(chunk) else { return }
                        chunk = Chunk()
                        chunk.places.reserveCapacity(batchSize)
                    }
                }
                if chunk.rows > 0 {
                    chunk.progress = box.reader.progress
                    guard queue.push(chunk) else { return }
                }
                queue.finish(error: nil)
            } catch {
                queue.finish(error: error)
            }
        }
        thread.stackSize = 8 << 20
        thread.start()
    }

    /// The next batch; nil at the end of the dump; the reader's error if it failed.
    func next() throws -> Chunk? { try queue.pop() }

    /// Stops the reading thread (when the import ends early).
    func cancel() { queue.cancel() }

    /// Lets the reader, which is used by one thread at a time, cross to the reading thread.
    private final class ReaderBox: @unchecked Sendable {
        // @unchecked Sendable: the box is created on the importing thread and then used only by
        // the reading thread; nothing else keeps a reference to the reader.
        var reader: any DumpReader
        init(_ reader: any DumpReader) { self.reader = reader }
    }
}
