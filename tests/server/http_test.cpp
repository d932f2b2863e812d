// The transport's pieces that need no socket: query and path decoding,
// routing, and undoing a body's Content-Encoding within a limit.
#include <gtest/gtest.h>

#include "body_decoding.hpp"
#include "gzip_for_tests.hpp"
#include "router.hpp"

namespace gmserver {
namespace {

using test_support::gzip;

TEST(HttpMessage, PercentDecodingKeepsMalformedEscapes) {
    EXPECT_EQ(percent_decode("%41b+c", true), "Ab c");
    EXPECT_EQ(percent_decode("%41b+c", false), "Ab+c");
    EXPECT_EQ(percent_decode("100%", false), "100%");
    EXPECT_EQ(percent_decode("%zz%4", false), "%zz%4");
}

TEST(HttpMessage, QueryParametersAreDecodedAndRepeatable) {
    const auto q = parse_query("a=1&b=x%20y&a=2&flag&=v&");
    EXPECT_EQ(q.count("a"), 2u);
    EXPECT_EQ(q.find("b")->second, "x y");
    EXPECT_EQ(q.find("flag")->second, "");
    HttpRequest r;
    r.params = q;
    EXPECT_EQ(r.param("a"), "1");
    EXPECT_EQ(r.param("missing"), "");
}

TEST(HttpMessage, HeaderNamesIgnoreCase) {
    HttpRequest r;
    r.headers["Content-Encoding"] = "gzip";
    EXPECT_TRUE(r.has_header("content-encoding"));
    EXPECT_EQ(r.header("CONTENT-ENCODING"), "gzip");
}

TEST(Router, RoutesByMethodAndPatternWithGroups) {
    Router router;
    std::string seen;
    router.get(R"(/things/([^/]+))", [&](HttpRequest &req, HttpResponse &res) {
        seen = req.matches.at(1);
        res.set_content("ok", "text/plain");
    });
    router.post("/things", [&](HttpRequest &, HttpResponse &res) { res.status = 201; });
    HttpRequest req;
    HttpResponse res;
    req.method = "GET";
    req.path = "/things/abc";
    router.handle(req, res);
    EXPECT_EQ(res.status, 200);
    EXPECT_EQ(seen, "abc");

    req = HttpRequest{};
    res = HttpResponse{};
    req.method = "DELETE";
    req.path = "/things";
    router.handle(req, res);
    EXPECT_EQ(res.status, 405);
    EXPECT_EQ(res.headers["Allow"], "POST");

    req.method = "GET";
    req.path = "/nothing";
    res = HttpResponse{};
    router.handle(req, res);
    EXPECT_EQ(res.status, 404);
    EXPECT_NE(res.body.find("\"not_found\""), std::string::npos);
}

TEST(Router, AFilterCanAnswerFirstAndExceptionsBecome500) {
    Router router;
    bool ran = false;
    router.get("/x", [&](HttpRequest &, HttpResponse &) { ran = true; });
    router.get("/boom", [&](HttpRequest &, HttpResponse &) { throw std::runtime_error("it broke"); });
    router.set_filter([](const HttpRequest &req, HttpResponse &res) {
        if (req.remote_addr != "blocked") return true;
        send_error(res, 429, "rate_limited", "slow down");
        return false;
    });
    HttpRequest req;
    HttpResponse res;
    req.method = "GET";
    req.path = "/x";
    req.remote_addr = "blocked";
    router.handle(req, res);
    EXPECT_EQ(res.status, 429);
    EXPECT_FALSE(ran);

    req.path = "/boom";
    req.remote_addr = "fine";
    res = HttpResponse{};
    router.handle(req, res);
    EXPECT_EQ(res.status, 500);
    EXPECT_NE(res.body.find("it broke"), std::string::npos);
}

TEST(BodyDecoding, GzipAndDeflateRoundTrip) {
    const std::string text(100000, 'q');
    std::string body = gzip(text), why;
    ASSERT_EQ(decode_body("gzip", &body, 1 << 20, &why), DecodeOutcome::Ok) << why;
    EXPECT_EQ(body, text);
    std::string same = "plain";
    EXPECT_EQ(decode_body("", &same, 10, &why), DecodeOutcome::Ok);
    EXPECT_EQ(decode_body(" Identity ", &same, 10, &why), DecodeOutcome::Ok);
    EXPECT_EQ(same, "plain");
}

TEST(BodyDecoding, OnePlainGzipMemberIsKeptAsReceived) {
    const std::string text(100000, 'q'), sent = gzip(text);
    std::string body = sent, member = "stale", why;
    ASSERT_EQ(decode_body("gzip", &body, 1 << 20, &why, &member), DecodeOutcome::Ok) << why;
    EXPECT_EQ(body, text);
    EXPECT_EQ(member, sent);
    // Identity bodies leave it empty.
    std::string plain = "plain";
    EXPECT_EQ(decode_body("", &plain, 10, &why, &member), DecodeOutcome::Ok);
    EXPECT_TRUE(member.empty());
}

TEST(BodyDecoding, OtherGzipShapesAreDecodedButNotKept) {
    std::string why, member;
    // Two members: the stream decoder reads the first, and nothing is kept.
    std::string two = gzip("first") + gzip("second");
    ASSERT_EQ(decode_body("gzip", &two, 1000, &why, &member), DecodeOutcome::Ok) << why;
    EXPECT_EQ(two, "first");
    EXPECT_TRUE(member.empty());
    // A file name in the header (FLG.FNAME): decoded, not kept.
    const std::string plain = gzip("named");
    std::string named = plain.substr(0, 10) + std::string("upload.json") + '\0' + plain.substr(10);
    named[3] = 0x08;
    ASSERT_EQ(decode_body("gzip", &named, 1000, &why, &member), DecodeOutcome::Ok) << why;
    EXPECT_EQ(named, "named");
    EXPECT_TRUE(member.empty());
    // A length field that lies, smaller or larger than the data: refused.
    for (unsigned char last : {0x00, 0x7f}) {
        std::string lying = gzip(std::string(5000, 'z'));
        lying[lying.size() - 4] = static_cast<char>(last);
        lying[lying.size() - 3] = static_cast<char>(last);
        EXPECT_EQ(decode_body("gzip", &lying, 1 << 20, &why, &member), DecodeOutcome::Corrupt);
        EXPECT_TRUE(member.empty());
    }
}

TEST(BodyDecoding, ABombStopsAtTheLimitWithoutChangingTheBody) {
    const std::string bomb = gzip(std::string(50u << 20, ' '));
    ASSERT_LT(bomb.size(), 100000u);
    std::string body = bomb, why;
    EXPECT_EQ(decode_body("gzip", &body, 1000000, &why), DecodeOutcome::TooLarge);
    EXPECT_EQ(body, bomb);
    EXPECT_NE(why.find("1000000"), std::string::npos);
    // Exactly at the limit is fine.
    std::string exact = gzip(std::string(1000, 'a'));
    EXPECT_EQ(decode_body("gzip", &exact, 1000, &why), DecodeOutcome::Ok);
    EXPECT_EQ(exact.size(), 1000u);
}

TEST(BodyDecoding, CorruptTruncatedAndUnknownEncodingsAreRefused) {
    std::string why, body = "not gzip at all";
    EXPECT_EQ(decode_body("gzip", &body, 1000, &why), DecodeOutcome::Corrupt);
    std::string cut = gzip(std::string(5000, 'z'));
    cut.resize(cut.size() / 2);
    EXPECT_EQ(decode_body("gzip", &cut, 100000, &why), DecodeOutcome::Corrupt);
    std::string br = "x";
    EXPECT_EQ(decode_body("br", &br, 1000, &why), DecodeOutcome::UnsupportedEncoding);
    EXPECT_NE(why.find("br"), std::string::npos);
}

}  // namespace
}  // namespace gmserver
