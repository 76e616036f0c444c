import Foundation

// Karney's inverse geodesic solution, distance only, transcribed from GeographicLib's
// `Geodesic.Inverse` (C. F. F. Karney, "Algorithms for geodesics", J. Geodesy 87:43–55, 2013;
// GeographicLib is MIT-licensed). Only the f > 0 branches are kept (WGS84).

extension Geodesic {
    /// Karney's inverse solution: the geodesic distance in metres, exact to round-off for every
    /// pair of points, antipodal ones included.
    public static func karneyDistance(
        latitude1: Double, longitude1: Double,
        latitude2: Double, longitude2: Double
    ) -> Double {
        KarneySolver.wgs84.distance(lat1: latitude1, lon1: longitude1, lat2: latitude2, lon2: longitude2)
    }
}

struct KarneySolver: Sendable {
    static let wgs84 = KarneySolver(a: WGS84.semiMajorAxis, f: WGS84.flattening)

    static let order = 6
    static let nC3x = (order * (order - 1)) / 2
    static let maxit1 = 20
    static let maxit2 = maxit1 + Double.significandBitCount + 1 + 10
    static let tiny = Double.leastNormalMagnitude.squareRoot()
    static let tol0 = Double.ulpOfOne
    static let tol1 = 200 * tol0
    static let tol2 = tol0.squareRoot()
    static let tolb = tol0
    static let xthresh = 1000 * tol2

    let a: Double, f: Double, f1: Double, e2: Double, ep2: Double, n: Double, b: Double
    let etol2: Double
    let A3x: [Double]
    let C3x: [Double]

    init(a: Double, f: Double) {
        self.a = a
        self.f = f
        f1 = 1 - f
        e2 = f * (2 - f)
        ep2 = e2 / (f1 * f1)
        n = f / (2 - f)
        b = a * f1
        etol2 = 0.1 * KarneySolver.tol2 / (max(0.001, abs(f)) * min(1.0, 1 - f / 2) / 2).squareRoot()
        let order = KarneySolver.order
        // A3 coefficients.
        let a3coeff: [Double] = [-3, 128, -2, -3, 64, -1, -3, -1, 16, 3, -1, -2, 8, 1, -1, 2, 1, 1]
        var a3x = [Double](repeating: 0, count: order)
        var o = 0, k = 0
        for j in stride(from: order - 1, through: 0, by: -1) {
            let m = min(order - j - 1, j)
            a3x[k] = KarneySolver.polyval(m, a3coeff, o, n) / a3coeff[o + m + 1]
            k += 1
            o += m + 2
        }
        A3x = a3x
        // C3 coefficients.
        let c3coeff: [Double] = [
            3, 128, 2, 5, 128, -1, 3, 3, 64, -1, 0, 1, 8, -1, 1, 4, 5, 256, 1, 3, 128, -3, -2, 3, 64,
            1, -3, 2, 32, 7, 512, -10, 9, 384, 5, -9, 5, 192, 7, 512, -14, 7, 512, 21, 2560,
        ]
        var c3x = [Double](repeating: 0, count: KarneySolver.nC3x)
        o = 0
        k = 0
        for l in 1..<order {
            for j in stride(from: order - 1, through: l, by: -1) {
                let m = min(order - j - 1, j)
                c3x[k] = KarneySolver.polyval(m, c3coeff, o, n) / c3coeff[o + m + 1]
                k += 1
                o += m + 2
            }
        }
        C3x = c3x
    }

    // MARK: Math helpers (GeographicLib::Math)

    @inline(__always) static func sq(_ x: Double) -> Double { x * x }

    static func polyval(_ degree: Int, _ p: [Double], _ start: Int, _ x: Double) -> Double {
        var y = degree < 0 ? 0 : p[start]
        var s = start, n = degree
        while n > 0 {
            n -= 1
            s += 1
            y = y * x + p[s]
        }
        return y
    }

    static func norm(_ x: Double, _ y: Double) -> (Double, Double) {
        let r = (x * x + y * y).squareRoot()
        return (x / r, y / r)
    }

    static func sum(_ u: Double, _ v: Double) -> (Double, Double) {
        let s = u + v
        var up = s - v
        var vpp = s - up
        up -= u
        vpp -= v
        let t = s == 0 ? 0.0 : 0.0 - (up + vpp)
        return (s, t)
    }

    static func angRound(_ x: Double) -> Double {
        let z = 1.0 / 16
        var y = abs(x)
        if y < z { y = z - (z - y) }
        return x.sign == .minus ? -y : y
    }

    static func angDiff(_ x: Double, _ y: Double) -> (Double, Double) {
        var (d, t) = sum((-x).remainder(dividingBy: 360), y.remainder(dividingBy: 360))
        (d, t) = sum(d.remainder(dividingBy: 360), t)
        if d == 0 || abs(d) == 180 {
            d = Double(signOf: t == 0 ? y - x : -t, magnitudeOf: d)
        }
        return (d, t)
    }

    static func sincosd(_ x: Double) -> (Double, Double) {
        var r = x.truncatingRemainder(dividingBy: 360)
        let q = r.isNaN ? 0 : Int((r / 90).rounded(.toNearestOrEven))
        r -= 90 * Double(q)
        r *= Double.pi / 180
        var s = sin(r), c = cos(r)
        switch ((q % 4) + 4) % 4 {
        case 1: (s, c) = (c, -s)
        case 2: (s, c) = (-s, -c)
        case 3: (s, c) = (-c, s)
        default: break
        }
        c += 0.0
        if s == 0 { s = Double(signOf: x, magnitudeOf: s) }
        return (s, c)
    }

    static func sincosde(_ x: Double, _ t: Double) -> (Double, Double) {
        let q = x.isFinite ? Int((x / 90).rounded(.toNearestOrEven)) : 0
        let r = angRound(x - 90 * Double(q) + t) * (Double.pi / 180)
        var s = sin(r), c = cos(r)
        switch ((q % 4) + 4) % 4 {
        case 1: (s, c) = (c, -s)
        case 2: (s, c) = (-s, -c)
        case 3: (s, c) = (-c, s)
        default: break
        }
        c += 0.0
        if s == 0 { s = Double(signOf: x, magnitudeOf: s) }
        return (s, c)
    }

    /// Clenshaw summation of a sine series; `c[1...]` are the coefficients.
    static func sinSeries(_ sinx: Double, _ cosx: Double, _ c: [Double]) -> Double {
        var k = c.count
        var n = k - 1
        let ar = 2 * (cosx - sinx) * (cosx + sinx)
        var y0 = 0.0, y1 = 0.0
        if n & 1 != 0 {
            k -= 1
            y0 = c[k]
        }
        n /= 2
        while n > 0 {
            n -= 1
            k -= 1
            y1 = ar * y0 - y1 + c[k]
            k -= 1
            y0 = ar * y1 - y0 + c[k]
        }
        return 2 * sinx * cosx * y0
    }

    static func astroid(_ x: Double, _ y: Double) -> Double {
        let p = sq(x), q = sq(y)
        var r = (p + q - 1) / 6
        if !(q == 0 && r <= 0) {
            let S = p * q / 4
            let r2 = sq(r), r3 = r * r2
            let disc = S * (S + 2 * r3)
            var u = r
            if disc >= 0 {
                var T3 = S + r3
                T3 += T3 < 0 ? -disc.squareRoot() : disc.squareRoot()
                let T = cbrt(T3)
                u += T + (T != 0 ? r2 / T : 0)
            } else {
                let ang = atan2((-disc).squareRoot(), -(S + r3))
                u += 2 * r * cos(ang / 3)
            }
            let v = (sq(u) + q).squareRoot()
            let uv = u < 0 ? q / (v - u) : u + v
            let w = (uv - q) / (2 * v)
            r = uv / ((uv + sq(w)).squareRoot() + w)
            return r
        }
        return 0
    }

    // MARK: Series coefficients

    static func a1m1f(_ eps: Double) -> Double {
        let coeff: [Double] = [1, 4, 64, 0, 256]
        let m = order / 2
        let t = polyval(m, coeff, 0, sq(eps)) / coeff[m + 1]
        return (t + eps) / (1 - eps)
    }

    static func c1f(_ eps: Double, _ c: inout [Double]) {
        let coeff: [Double] = [-1, 6, -16, 32, -9, 64, -128, 2048, 9, -16, 768, 3, -5, 512, -7, 1280, -7, 2048]
        let eps2 = sq(eps)
        var d = eps, o = 0
        for l in 1...order {
            let m = (order - l) / 2
            c[l] = d * polyval(m, coeff, o, eps2) / coeff[o + m + 1]
            o += m + 2
            d *= eps
        }
    }

    static func a2m1f(_ eps: Double) -> Double {
        let coeff: [Double] = [-11, -28, -192, 0, 256]
        let m = order / 2
        let t = polyval(m, coeff, 0, sq(eps)) / coeff[m + 1]
        return (t - eps) / (1 + eps)
    }

    static func c2f(_ eps: Double, _ c: inout [Double]) {
        let coeff: [Double] = [1, 2, 16, 32, 35, 64, 384, 2048, 15, 80, 768, 7, 35, 512, 63, 1280, 77, 2048]
        let eps2 = sq(eps)
        var d = eps, o = 0
        for l in 1...order {
            let m = (order - l) / 2
            c[l] = d * polyval(m, coeff, o, eps2) / coeff[o + m + 1]
            o += m + 2
            d *= eps
        }
    }

    func a3f(_ eps: Double) -> Double { KarneySolver.polyval(KarneySolver.order - 1, A3x, 0, eps) }

    func c3f(_ eps: Double, _ c: inout [Double]) {
        var mult = 1.0, o = 0
        for l in 1..<KarneySolver.order {
            let m = KarneySolver.order - l - 1
            mult *= eps
            c[l] = mult * KarneySolver.polyval(m, C3x, o, eps)
            o += m + 1
        }
    }

    // MARK: Lengths

    /// Returns (s12b, m12b, m0); `wantDistance` / `wantReduced` select the outputs.
    func lengths(
        eps: Double, sig12: Double, ssig1: Double, csig1: Double, dn1: Double,
        ssig2: Double, csig2: Double, dn2: Double,
        wantDistance: Bool, wantReduced: Bool,
        C1a: inout [Double], C2a: inout [Double]
    ) -> (Double, Double, Double) {
        var s12b = Double.nan, m12b = Double.nan, m0 = Double.nan
        var A1 = KarneySolver.a1m1f(eps)
        KarneySolver.c1f(eps, &C1a)
        var A2 = 0.0, m0x = 0.0
        if wantReduced {
            A2 = KarneySolver.a2m1f(eps)
            KarneySolver.c2f(eps, &C2a)
            m0x = A1 - A2
            A2 = 1 + A2
        }
        A1 = 1 + A1
        var J12 = 0.0
        if wantDistance {
            let B1 = KarneySolver.sinSeries(ssig2, csig2, C1a) - KarneySolver.sinSeries(ssig1, csig1, C1a)
            s12b = A1 * (sig12 + B1)
            if wantReduced {
                let B2 = KarneySolver.sinSeries(ssig2, csig2, C2a) - KarneySolver.sinSeries(ssig1, csig1, C2a)
                J12 = m0x * sig12 + (A1 * B1 - A2 * B2)
            }
        } else if wantReduced {
            for l in 1...KarneySolver.order { C2a[l] = A1 * C1a[l] - A2 * C2a[l] }
            J12 = m0x * sig12 + (KarneySolver.sinSeries(ssig2, csig2, C2a) - KarneySolver.sinSeries(ssig1, csig1, C2a))
        }
        if wantReduced {
            m0 = m0x
            m12b = dn2 * (csig1 * ssig2) - dn1 * (ssig1 * csig2) - csig1 * csig2 * J12
        }
        return (s12b, m12b, m0)
    }

    // MARK: Inverse start

    struct Start {
        var sig12: Double
        var salp1: Double
        var calp1: Double
        var dnm: Double
    }

    func inverseStart(
        sbet1: Double, cbet1: Double, dn1: Double, sbet2: Double, cbet2: Double, dn2: Double,
        lam12: Double, slam12: Double, clam12: Double
    ) -> Start {
        typealias K = KarneySolver
        var sig12 = -1.0, dnm = Double.nan
        let sbet12 = sbet2 * cbet1 - cbet2 * sbet1
        let cbet12 = cbet2 * cbet1 + sbet2 * sbet1
        var sbet12a = sbet2 * cbet1
        sbet12a += cbet2 * sbet1
        let shortline = cbet12 >= 0 && sbet12 < 0.5 && cbet2 * lam12 < 0.5
        var somg12: Double, comg12: Double
        if shortline {
            var sbetm2 = K.sq(sbet1 + sbet2)
            sbetm2 /= sbetm2 + K.sq(cbet1 + cbet2)
            dnm = (1 + ep2 * sbetm2).squareRoot()
            let omg12 = lam12 / (f1 * dnm)
            somg12 = sin(omg12)
            comg12 = cos(omg12)
        } else {
            somg12 = slam12
            comg12 = clam12
        }
        var salp1 = cbet2 * somg12
        var calp1 =
            comg12 >= 0
            ? sbet12 + cbet2 * sbet1 * K.sq(somg12) / (1 + comg12)
            : sbet12a - cbet2 * sbet1 * K.sq(somg12) / (1 - comg12)
        let ssig12 = (salp1 * salp1 + calp1 * calp1).squareRoot()
        let csig12 = sbet1 * sbet2 + cbet1 * cbet2 * comg12
        if shortline && ssig12 < etol2 {
            sig12 = atan2(ssig12, csig12)
        } else if abs(n) >= 0.1 || csig12 >= 0 || ssig12 >= 6 * abs(n) * Double.pi * K.sq(cbet1) {
            // Zeroth-order spherical approximation is fine.
        } else {
            let lam12x = atan2(-slam12, -clam12)
            let k2 = K.sq(sbet1) * ep2
            let eps = k2 / (2 * (1 + (1 + k2).squareRoot()) + k2)
            let lamscale = f * cbet1 * a3f(eps) * Double.pi
            let betscale = lamscale * cbet1
            let x = lam12x / lamscale
            let y = sbet12a / betscale
            if y > -K.tol1 && x > -1 - K.xthresh {
                salp1 = min(1.0, -x)
                calp1 = -(1 - K.sq(salp1)).squareRoot()
            } else {
                let k = K.astroid(x, y)
                let omg12a = lamscale * (-x * k / (1 + k))
                somg12 = sin(omg12a)
                comg12 = -cos(omg12a)
                salp1 = cbet2 * somg12
                calp1 = sbet12a - cbet2 * sbet1 * K.sq(somg12) / (1 - comg12)
            }
        }
        if !(salp1 <= 0) {
            (salp1, calp1) = K.norm(salp1, calp1)
        } else {
            salp1 = 1
            calp1 = 0
        }
        return Start(sig12: sig12, salp1: salp1, calp1: calp1, dnm: dnm)
    }

    // MARK: Lambda12

    struct LambdaResult {
        var lam12: Double, sig12: Double, ssig1: Double, csig1: Double, ssig2: Double, csig2: Double
        var eps: Double, dlam12: Double
    }

    func lambda12(
        sbet1: Double, cbet1: Double, dn1: Double, sbet2: Double, cbet2: Double, dn2: Double,
        salp1: Double, calp1 calp1In: Double, slam120: Double, clam120: Double, diffp: Bool,
        C1a: inout [Double], C2a: inout [Double], C3a: inout [Double]
    ) -> LambdaResult {
        typealias K = KarneySolver
        var calp1 = calp1In
        if sbet1 == 0 && calp1 == 0 { calp1 = -K.tiny }
        let salp0 = salp1 * cbet1
        let calp0 = (calp1 * calp1 + K.sq(salp1 * sbet1)).squareRoot()
        var ssig1 = sbet1
        let somg1 = salp0 * sbet1
        var csig1 = calp1 * cbet1
        let comg1 = csig1
        (ssig1, csig1) = K.norm(ssig1, csig1)
        let calp2: Double
        if cbet2 != cbet1 || abs(sbet2) != -sbet1 {
            calp2 =
                (K.sq(calp1 * cbet1)
                + (cbet1 < -sbet1
                    ? (cbet2 - cbet1) * (cbet1 + cbet2)
                    : (sbet1 - sbet2) * (sbet1 + sbet2)))
                .squareRoot() / cbet2
        } else {
            calp2 = abs(calp1)
        }
        var ssig2 = sbet2
        let somg2 = salp0 * sbet2
        var csig2 = calp2 * cbet2
        let comg2 = csig2
        (ssig2, csig2) = K.norm(ssig2, csig2)
        let sig12 = atan2(max(0.0, csig1 * ssig2 - ssig1 * csig2) + 0.0, csig1 * csig2 + ssig1 * ssig2)
        let somg12 = max(0.0, comg1 * somg2 - somg1 * comg2) + 0.0
        let comg12 = comg1 * comg2 + somg1 * somg2
        let eta = atan2(somg12 * clam120 - comg12 * slam120, comg12 * clam120 + somg12 * slam120)
        let k2 = K.sq(calp0) * ep2
        let eps = k2 / (2 * (1 + (1 + k2).squareRoot()) + k2)
        c3f(eps, &C3a)
        let B312 = K.sinSeries(ssig2, csig2, C3a) - K.sinSeries(ssig1, csig1, C3a)
        let domg12 = -f * a3f(eps) * salp0 * (sig12 + B312)
        let lam12 = eta + domg12
        var dlam12 = Double.nan
        if diffp {
            if calp2 == 0 {
                dlam12 = -2 * f1 * dn1 / sbet1
            } else {
                let (_, m12b, _) = lengths(
                    eps: eps, sig12: sig12, ssig1: ssig1, csig1: csig1, dn1: dn1,
                    ssig2: ssig2, csig2: csig2, dn2: dn2,
                    wantDistance: false, wantReduced: true, C1a: &C1a, C2a: &C2a)
                dlam12 = m12b * f1 / (calp2 * cbet2)
            }
        }
        return LambdaResult(
            lam12: lam12, sig12: sig12, ssig1: ssig1, csig1: csig1, ssig2: ssig2,
            csig2: csig2, eps: eps, dlam12: dlam12)
    }

    // MARK: Inverse

    func distance(lat1 lat1In: Double, lon1: Double, lat2 lat2In: Double, lon2: Double) -> Double {
        typealias K = KarneySolver
        var (lon12, lon12s) = K.angDiff(lon1, lon2)
        let lonsign = lon12.sign == .minus ? -1.0 : 1.0
        lon12 *= lonsign
        lon12s *= lonsign
        let lam12 = lon12 * (Double.pi / 180)
        let (slam12, clam12) = K.sincosde(lon12, lon12s)
        lon12s = (180 - lon12) - lon12s
        var lat1 = K.angRound(lat1In), lat2 = K.angRound(lat2In)
        if abs(lat1) < abs(lat2) || lat2.isNaN { swap(&lat1, &lat2) }
        let latsign = lat1.sign == .minus ? 1.0 : -1.0
        lat1 *= latsign
        lat2 *= latsign
        var (sbet1, cbet1) = K.sincosd(lat1)
        sbet1 *= f1
        (sbet1, cbet1) = K.norm(sbet1, cbet1)
        cbet1 = max(K.tiny, cbet1)
        var (sbet2, cbet2) = K.sincosd(lat2)
        sbet2 *= f1
        (sbet2, cbet2) = K.norm(sbet2, cbet2)
        cbet2 = max(K.tiny, cbet2)
        if cbet1 < -sbet1 {
            if cbet2 == cbet1 { sbet2 = Double(signOf: sbet2, magnitudeOf: sbet1) }
        } else if abs(sbet2) == -sbet1 {
            cbet2 = cbet1
        }
        let dn1 = (1 + ep2 * K.sq(sbet1)).squareRoot()
        let dn2 = (1 + ep2 * K.sq(sbet2)).squareRoot()
        var C1a = [Double](repeating: 0, count: K.order + 1)
        var C2a = [Double](repeating: 0, count: K.order + 1)
        var C3a = [Double](repeating: 0, count: K.order)

        var s12x = Double.nan
        var meridian = lat1 == -90 || slam12 == 0
        if meridian {
            let calp1 = clam12
            let ssig1 = sbet1, csig1 = calp1 * cbet1
            let ssig2 = sbet2, csig2 = 1.0 * cbet2
            var sig12 = atan2(max(0.0, csig1 * ssig2 - ssig1 * csig2) + 0.0, csig1 * csig2 + ssig1 * ssig2)
            var (s12b, m12b, _) = lengths(
                eps: n, sig12: sig12, ssig1: ssig1, csig1: csig1, dn1: dn1,
                ssig2: ssig2, csig2: csig2, dn2: dn2,
                wantDistance: true, wantReduced: true, C1a: &C1a, C2a: &C2a)
            if sig12 < K.tol2 || m12b >= 0 {
                if sig12 < 3 * K.tiny || (sig12 < K.tol0 && (s12b < 0 || m12b < 0)) {
                    sig12 = 0
                    m12b = 0
                    s12b = 0
                }
                s12x = s12b * b
            } else {
                meridian = false
            }
        }
        if !meridian && sbet1 == 0 && (f <= 0 || lon12s >= f * 180) {
            s12x = a * lam12  // geodesic runs along the equator
        } else if !meridian {
            let start = inverseStart(
                sbet1: sbet1, cbet1: cbet1, dn1: dn1, sbet2: sbet2, cbet2: cbet2, dn2: dn2,
                lam12: lam12, slam12: slam12, clam12: clam12)
            if start.sig12 >= 0 {
                s12x = start.sig12 * b * start.dnm
            } else {
                var salp1 = start.salp1, calp1 = start.calp1
                var numit = 0
                var tripn = false, tripb = false
                var salp1a = K.tiny, calp1a = 1.0, salp1b = K.tiny, calp1b = -1.0
                var result: LambdaResult
                while true {
                    result = lambda12(
                        sbet1: sbet1, cbet1: cbet1, dn1: dn1, sbet2: sbet2, cbet2: cbet2, dn2: dn2,
                        salp1: salp1, calp1: calp1, slam120: slam12, clam120: clam12,
                        diffp: numit < K.maxit1, C1a: &C1a, C2a: &C2a, C3a: &C3a)
                    let v = result.lam12, dv = result.dlam12
                    if tripb || !(abs(v) >= (tripn ? 8 : 1) * K.tol0) || numit == K.maxit2 { break }
                    if v > 0 && (numit > K.maxit1 || calp1 / salp1 > calp1b / salp1b) {
                        salp1b = salp1
                        calp1b = calp1
                    } else if v < 0 && (numit > K.maxit1 || calp1 / salp1 < calp1a / salp1a) {
                        salp1a = salp1
                        calp1a = calp1
                    }
                    numit += 1
                    if numit < K.maxit1 && dv > 0 {
                        let dalp1 = -v / dv
                        if abs(dalp1) < Double.pi {
                            let sdalp1 = sin(dalp1), cdalp1 = cos(dalp1)
                            let nsalp1 = salp1 * cdalp1 + calp1 * sdalp1
                            if nsalp1 > 0 {
                                calp1 = calp1 * cdalp1 - salp1 * sdalp1
                                salp1 = nsalp1
                                (salp1, calp1) = K.norm(salp1, calp1)
                                tripn = abs(v) <= 16 * K.tol0
                                continue
                            }
                        }
                    }
                    salp1 = (salp1a + salp1b) / 2
                    calp1 = (calp1a + calp1b) / 2
                    (salp1, calp1) = K.norm(salp1, calp1)
                    tripn = false
                    tripb =
                        abs(salp1a - salp1) + (calp1a - calp1) < K.tolb
                        || abs(salp1 - salp1b) + (calp1 - calp1b) < K.tolb
                }
                let (s12b, _, _) = lengths(
                    eps: result.eps, sig12: result.sig12, ssig1: result.ssig1,
                    csig1: result.csig1, dn1: dn1, ssig2: result.ssig2, csig2: result.csig2,
                    dn2: dn2, wantDistance: true, wantReduced: false, C1a: &C1a, C2a: &C2a)
                s12x = s12b * b
            }
        }
        return 0.0 + s12x
    }
}
