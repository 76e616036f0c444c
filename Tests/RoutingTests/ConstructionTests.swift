import GeoCore
import Testing

@testable import Routing

@Suite("First tours and candidate edges")
struct ConstructionTests {
    /// Two tight clusters of points 50 km apart (ellipsoidal metres).
    func twoClusters(_ perCluster: Int, seed: UInt64) -> RouteCosts {
        var random = SplitMix64(seed: seed)
        let points = (0..<(2 * perCluster)).map { index in
            let longitude = index < perCluster ? 2.0 : 2.7
            return Coordinate(uncheckedLatitude: 48.8 + random.unit() * 0.02, longitude: longitude + random.unit() * 0.02)
        }
        return RouteCosts(points: points)
    }

    @Test("The greedy tour visits every stop once and keeps a fixed start and end", arguments: ShapeCase.allCases)
    func greedyTourFitsTheShape(shapeCase: ShapeCase) throws {
        for seed in 1...3 as ClosedRange<UInt64> {
            let costs = twoClusters(40 + Int(seed), seed: seed)
            let shape = shapeCase.shape.normalised
            let tourCosts = TourCosts(costs, shape: shape)
            let candidates = CandidateLists(tourCosts, embedding: costs.embedding, perNode: 10)
            let tour = InitialTour.greedy(tourCosts, candidates: candidates)
            #expect(tour.map(Int.init).sorted() == Array(0..<tourCosts.nodeCount))
            let closedStart: Int? = if case .closed(let s) = shape { s } else { nil }
            checkOrder(tourCosts.order(fromTour: tour, closedStart: closedStart), costs, shape)
            // Greedy is no worse than nearest neighbour here (within 5 %).
            let nearest = InitialTour.nearestNeighbour(tourCosts, candidates: candidates)
            #expect(tourCosts.length(of: tour) <= tourCosts.length(of: nearest) * 1.05)
        }
    }

    @Test func quadrantCandidatesReachTheOtherCluster() {
        let costs = twoClusters(60, seed: 9)
        let tourCosts = TourCosts(costs, shape: .closed())
        let candidates = CandidateLists(tourCosts, embedding: costs.embedding, perNode: 10)
        var bridging = 0
        for node in 0..<120 {
            var previous = -1.0
            for k in 0..<candidates.perNode {
                let other = candidates.candidate(node, k)
                if other < 0 { break }
                // Cheapest first, and each cost the true one.
                #expect(candidates.candidateCost(node, k) >= previous)
                #expect(candidates.candidateCost(node, k) == tourCosts.cost(node, other))
                previous = candidates.candidateCost(node, k)
                if (other < 60) != (node < 60) { bridging += 1 }
            }
        }
        // The ten nearest all lie in a stop's own cluster; only the quadrant picks cross.
        #expect(bridging > 0)
        // The easternmost stop of the western cluster has only the other cluster in its
        // eastern quadrants, and so a candidate there; likewise the other way.
        guard case .geodesic(_, let longitudes) = costs.storage else {
            Issue.record("not geodesic")
            return
        }
        let eastmostWest = (0..<60).max { longitudes[$0] < longitudes[$1] }!
        let westmostEast = (60..<120).min { longitudes[$0] < longitudes[$1] }!
        #expect((0..<candidates.perNode).contains { candidates.candidate(eastmostWest, $0) >= 60 })
        #expect((0..<candidates.perNode).contains { (0..<60).contains(candidates.candidate(westmostEast, $0)) })
    }
}
