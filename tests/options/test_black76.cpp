// Black-76 reference values: published and hand-computed values, put-call parity, greeks against
// finite differences, the implied-volatility round trip and its refusals outside the
// no-arbitrage bounds, volatility from an index history, forwards from the term structure, and
// options on a delivery period's average.
#include "core/options/Black76.h"

#include <QtTest>

#include <cmath>
#include <random>

using namespace tessera::indexoptions;

namespace {
constexpr OptionKind kCall = OptionKind::Call, kPut = OptionKind::Put;
bool near(double a, double b, double tol) { return std::abs(a - b) <= tol; }
}  // namespace

class Black76Test : public QObject {
  Q_OBJECT

 private slots:
  void publishedValues() {
    // E. G. Haug, "The Complete Guide to Option Pricing Formulas", 2nd ed., section 1.1.2
    // (Black-76): F = 19, K = 19, T = 0.75, r = 10%, sigma = 28% gives c = p = 1.7011.
    QVERIFY(near(black76(kCall, 19, 19, 0.28, 0.75, 0.10).value, 1.7011, 5e-5));
    QVERIFY(near(black76(kPut, 19, 19, 0.28, 0.75, 0.10).value, 1.7011, 5e-5));
    // J. C. Hull, "Options, Futures, and Other Derivatives", the European futures put of the
    // Black's-model example: F = K = 20, r = 9%, T = 4 months, sigma = 25% gives 1.12.
    QVERIFY(near(black76(kPut, 20, 20, 0.25, 4.0 / 12, 0.09).value, 1.12, 5e-3));
    // By hand, r = 0, F = K = $2.00, sigma = 50%, T = 1: d1 = 0.25, d2 = -0.25,
    // c = 2 (N(0.25) - N(-0.25)) = 2 (0.5987063 - 0.4012937) = 0.3948253.
    QVERIFY(near(black76(kCall, 2, 2, 0.5, 1).value, 0.3948253, 1e-7));
    // Fails under the mutation d2 = d1 + sigma sqrt(T) in black76 (every value above moves).
  }

  void putCallParity() {
    // c - p = e^{-rT} (F - K) for every strike, volatility, time and rate; fails under a put
    // formula that uses N(d2) for N(-d2) (mutation seen failing: `strike * normCdf(d2)` in the put).
    std::mt19937 rng(7);
    std::uniform_real_distribution<double> f(0.5, 5), k(0.2, 8), s(0.01, 2), t(0.001, 3), r(0, 0.1);
    for (int i = 0; i < 2000; ++i) {
      const double F = f(rng), K = k(rng), sigma = s(rng), T = t(rng), rate = r(rng);
      const double c = black76(kCall, F, K, sigma, T, rate).value;
      const double p = black76(kPut, F, K, sigma, T, rate).value;
      QVERIFY2(near(c - p, std::exp(-rate * T) * (F - K), 1e-10 * std::max(1.0, F + K)),
               qPrintable(QString("F=%1 K=%2 s=%3 T=%4").arg(F).arg(K).arg(sigma).arg(T)));
    }
  }

  void greeksMatchFiniteDifferences() {
    // Central differences of the value itself; fails if any greek's formula is off (mutations
    // seen failing: gamma without the 1/F, vega without sqrt T, theta with the wrong sign).
    for (OptionKind kind : {kCall, kPut})
      for (double K : {1.5, 2.0, 2.6})
        for (double T : {0.05, 0.5, 2.0}) {
          const double F = 2.1, sigma = 0.45, r = 0.03;
          const auto g = black76(kind, F, K, sigma, T, r);
          const double h = 1e-4;
          auto v = [&](double f, double s, double t) { return black76(kind, f, K, s, t, r).value; };
          const double delta = (v(F + h, sigma, T) - v(F - h, sigma, T)) / (2 * h);
          const double gamma = (v(F + h, sigma, T) - 2 * v(F, sigma, T) + v(F - h, sigma, T)) / (h * h);
          const double vega = (v(F, sigma + h, T) - v(F, sigma - h, T)) / (2 * h);
          const double theta = -(v(F, sigma, T + h) - v(F, sigma, T - h)) / (2 * h);
          QVERIFY2(near(g.delta, delta, 1e-6), qPrintable(QString("delta %1 vs %2").arg(g.delta).arg(delta)));
          QVERIFY2(near(g.gamma, gamma, 1e-4), qPrintable(QString("gamma %1 vs %2").arg(g.gamma).arg(gamma)));
          QVERIFY2(near(g.vega, vega, 1e-6), qPrintable(QString("vega %1 vs %2").arg(g.vega).arg(vega)));
          QVERIFY2(near(g.theta, theta, 1e-5), qPrintable(QString("theta %1 vs %2").arg(g.theta).arg(theta)));
        }
  }

  void expiredOrFlatIsIntrinsic() {
    QCOMPARE(black76(kCall, 2.5, 2.0, 0.4, 0).value, 0.5);
    QCOMPARE(black76(kPut, 2.5, 2.0, 0.4, 0).value, 0.0);
    QCOMPARE(black76(kPut, 1.5, 2.0, 0, 1).value, 0.5);
    QCOMPARE(black76(kCall, 2.5, 2.0, 0, 1).delta, 1.0);
  }

  void impliedVolatilityRoundTrip() {
    // Fails if the solver stops early or leaves its bracket (mutation seen failing: tolerance 1e-3).
    for (OptionKind kind : {kCall, kPut})
      for (double K : {0.8, 1.9, 2.0, 2.2, 4.0})
        for (double T : {1.0 / 365, 0.25, 3.0})
          for (double sigma : {0.02, 0.3, 1.2, 4.0}) {
            const double F = 2.0;
            const double price = black76(kind, F, K, sigma, T).value;
            const double vega = black76(kind, F, K, sigma, T).vega;
            if (vega < 1e-8) continue;  // the price does not pin the volatility down
            auto iv = impliedVolatility(kind, price, F, K, T);
            if (const auto* e = std::get_if<ImpliedVolError>(&iv))
              QFAIL(qPrintable(
                  QString("K=%1 T=%2 s=%3: %4").arg(K).arg(T).arg(sigma).arg(QString::fromUtf8(toString(*e).data()))));
            // The solver stops within 1e-10 of the price, so the volatility is within that over vega.
            QVERIFY2(near(std::get<double>(iv), sigma, std::max(1e-7, 2e-10 / vega)),
                     qPrintable(QString("K=%1 T=%2: %3 vs %4").arg(K).arg(T).arg(std::get<double>(iv)).arg(sigma)));
          }
  }

  void impliedVolatilityRefusesPricesOutsideTheBounds() {
    // A call under its intrinsic value, a call worth the whole forward, a put worth the whole
    // strike, an expired option: each a clear refusal, never a made-up volatility.
    QVERIFY(std::get<ImpliedVolError>(impliedVolatility(kCall, 0.40, 2.5, 2.0, 0.5)) ==
            ImpliedVolError::BelowIntrinsic);
    QVERIFY(std::get<ImpliedVolError>(impliedVolatility(kCall, 2.5, 2.5, 2.0, 0.5)) == ImpliedVolError::AboveBound);
    QVERIFY(std::get<ImpliedVolError>(impliedVolatility(kPut, 2.1, 2.5, 2.0, 0.5)) == ImpliedVolError::AboveBound);
    QVERIFY(std::get<ImpliedVolError>(impliedVolatility(kPut, 0.1, 2.5, 2.0, 0)) == ImpliedVolError::NoTime);
    // Just under the bound: a volatility beyond any searched.
    QVERIFY(std::get<ImpliedVolError>(impliedVolatility(kCall, 2.4999, 2.5, 2.0, 0.5)) ==
            ImpliedVolError::NotConverged);
    // Exactly intrinsic: the lowest volatility, not a failure.
    QCOMPARE(std::get<double>(impliedVolatility(kCall, 0.5, 2.5, 2.0, 0.5)), kMinImpliedVol);
  }

  void volatilityFromIndexHistory() {
    // An hourly path with log changes alternating +-1%: sample sd of the changes = 0.01 *
    // sqrt(n / (n - 1)), annualised by sqrt(8760).
    std::vector<double> path{2.0};
    for (int i = 0; i < 100; ++i) path.push_back(path.back() * std::exp(i % 2 ? -0.01 : 0.01));
    const auto v = historicalVolatility(path, 1);
    QVERIFY(v);
    QVERIFY(near(*v, 0.01 * std::sqrt(100.0 / 99.0) * std::sqrt(8760.0), 1e-9));
    QVERIFY(!historicalVolatility({2.0, 2.1, 2.2}, 1));  // too short to say
    // A flat index has no volatility.
    QCOMPARE(*historicalVolatility(std::vector<double>(50, 2.0), 1), 0.0);
  }

  void forwardFromTheTermStructureAndTheBook() {
    const std::vector<TermPoint> terms{{12, 2.0}, {96, 2.2}, {432, 2.6}};
    QCOMPARE(*forwardFromTerms(terms, 0), 2.0);
    QVERIFY(near(*forwardFromTerms(terms, 54), 2.1, 1e-12));
    QCOMPARE(*forwardFromTerms(terms, 5000), 2.6);
    QVERIFY(!forwardFromTerms({}, 10));
    QCOMPARE(*forwardFromBook(2.0, 2.2), 2.1);
    QCOMPARE(*forwardFromBook(std::nullopt, 2.2), 2.2);
    QVERIFY(!forwardFromBook(std::nullopt, std::nullopt));
  }

  void optionOnTheAverageOfAPeriod() {
    // Before delivery: Black-76 with T = lead + a third of the period.
    AverageOption o{kCall, 2.0, 1000, 1000 + 720, 0, 0};
    const double now = 1000 - 2190;
    const auto g = averageOptionValue(o, 2.1, 0.5, now);
    QVERIFY(near(g.value, black76(kCall, 2.1, 2.0, 0.5, (2190 + 240) / kHoursPerYear).value, 1e-12));
    // Half the period averaged at $3.00 and strike $2.00: K' = (2 - 1.5) / 0.5 = 1.0, the call
    // is worth half a call struck at $1.00 on the rest.
    AverageOption half{kCall, 2.0, 0, 720, 360, 3.0};
    QVERIFY(near(averageOptionValue(half, 2.0, 0.5, 360).value,
                 0.5 * black76(kCall, 2.0, 1.0, 0.5, 120 / kHoursPerYear).value, 1e-12));
    // Averaged at $5.00 over half: certainly in the money, 0.5 * 5 + 0.5 * F - K.
    AverageOption deep{kCall, 2.0, 0, 720, 360, 5.0};
    QVERIFY(near(averageOptionValue(deep, 2.0, 0.5, 360).value, 1.5, 1e-12));
    AverageOption deepPut{kPut, 2.0, 0, 720, 360, 5.0};
    QCOMPARE(averageOptionValue(deepPut, 2.0, 0.5, 360).value, 0.0);
    // After the period: the payoff on the known mean.
    AverageOption done{kPut, 2.0, 0, 720, 720, 1.75};
    QVERIFY(near(averageOptionValue(done, 9.0, 0.5, 800).value, 0.25, 1e-12));
  }
};

QTEST_APPLESS_MAIN(Black76Test)
#include "test_black76.moc"
