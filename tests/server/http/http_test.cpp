// The transport's pieces that need no socket: query and path decoding,
// routing (HEAD, OPTIONS and Allow included), and undoing a body's
// Content-Encoding within a limit.
#include <gtest/gtest.h>
#include <zstd.h>

#include <memory>
#include <stdexcept>

#include "http/body_decoding.hpp"
#include "gzip_for_tests.hpp"
#include "http/router.hpp"

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
    EXPECT_EQ(res.headers["Allow"], "POST, OPTIONS");

    req.method = "GET";
    req.path = "/nothing";
    res = HttpResponse{};
    router.handle(req, res);
    EXPECT_EQ(res.status, 404);
    EXPECT_NE(res.body.find("\"not_found\""), std::string::npos);
}

TEST(Router, HeadRunsTheGetRouteAndOptionsListsEachMethodOnce) {
    Router router;
    int first = 0, second = 0;
    // Two GET routes on one path (the second is never reached): Allow names GET once.
    router.get("/page", [&](HttpRequest &, HttpResponse &res) {
        ++first;
        res.set_content("<p>page</p>", "text/html");
    });
    router.get("/page", [&](HttpRequest &, HttpResponse &) { ++second; });
    router.del("/page", [&](HttpRequest &, HttpResponse &) {});
    router.post("/upload", [&](HttpRequest &, HttpResponse &res) { res.status = 201; });

    HttpRequest req;
    HttpResponse res;
    req.method = "HEAD";
    req.path = "/page";
    router.handle(req, res);
    EXPECT_EQ(res.status, 200);
    EXPECT_EQ(first, 1);
    EXPECT_EQ(second, 0);
    EXPECT_EQ(res.body, "<p>page</p>");  // the transport leaves it out, after counting its length
    EXPECT_EQ(res.route, "/page");

    req.method = "OPTIONS";
    res = HttpResponse{};
    router.handle(req, res);
    EXPECT_EQ(res.status, 204);
    EXPECT_EQ(res.headers["Allow"], "GET, HEAD, DELETE, OPTIONS");
    EXPECT_TRUE(res.body.empty());
    EXPECT_EQ(first, 1);

    req.method = "PUT";
    res = HttpResponse{};
    router.handle(req, res);
    EXPECT_EQ(res.status, 405);
    EXPECT_EQ(res.headers["Allow"], "GET, HEAD, DELETE, OPTIONS");

    // HEAD is not a POST: a path with no GET route is 405 for it.
    req.method = "HEAD";
    req.path = "/upload";
    res = HttpResponse{};
    router.handle(req, res);
    EXPECT_EQ(res.status, 405);
    EXPECT_EQ(res.headers["Allow"], "POST, OPTIONS");
    EXPECT_EQ(router.allowed("/upload"), "POST, OPTIONS");
    EXPECT_EQ(router.allowed("/nothing"), "");

    req.method = "OPTIONS";
    req.path = "/nothing";
    res = HttpResponse{};
    router.handle(req, res);
    EXPECT_EQ(res.status, 404);
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

// zstd as gmlab-upload sends it: one frame that declares its size.
std::string zstd(const std::string &text, int level = 19) {
    std::string out(ZSTD_compressBound(text.size()), '\0');
    const std::size_t n = ZSTD_compress(out.data(), out.size(), text.data(), text.size(), level);
    if (ZSTD_isError(n)) throw std::runtime_error(ZSTD_getErrorName(n));
    out.resize(n);
    return out;
}

// A streamed frame: no declared size, and the window it was given.
std::string zstd_streamed(const std::string &text, int window_log = 0) {
    std::unique_ptr<ZSTD_CCtx, std::size_t (*)(ZSTD_CCtx *)> c(ZSTD_createCCtx(), ZSTD_freeCCtx);
    ZSTD_CCtx_setParameter(c.get(), ZSTD_c_contentSizeFlag, 0);
    if (window_log) ZSTD_CCtx_setParameter(c.get(), ZSTD_c_windowLog, window_log);
    std::string out(ZSTD_compressBound(text.size()) + 64, '\0');
    ZSTD_inBuffer in{text.data(), text.size(), 0};
    ZSTD_outBuffer o{out.data(), out.size(), 0};
    // ZSTD_e_end in one call would know the size; feed it as a stream instead.
    while (in.pos < in.size) ZSTD_compressStream2(c.get(), &o, &in, ZSTD_e_continue);
    while (ZSTD_compressStream2(c.get(), &o, &in, ZSTD_e_end) != 0) {
    }
    out.resize(o.pos);
    return out;
}

TEST(BodyDecoding, OneZstdFrameIsDecodedAndKeptAsReceived) {
    const std::string text(100000, 'q'), sent = zstd(text);
    std::string body = sent, kept = "stale", why;
    ASSERT_EQ(decode_body("zstd", &body, 1 << 20, &why, &kept), DecodeOutcome::Ok) << why;
    EXPECT_EQ(body, text);
    EXPECT_EQ(kept, sent);
    EXPECT_GE(body.capacity(), body.size() + kDecodedSpareBytes);
    // Exactly at the limit is fine.
    std::string exact = zstd(std::string(1000, 'a'));
    EXPECT_EQ(decode_body(" ZSTD ", &exact, 1000, &why, &kept), DecodeOutcome::Ok) << why;
    EXPECT_EQ(exact.size(), 1000u);
}

TEST(BodyDecoding, OtherZstdShapesAreDecodedButNotKept) {
    std::string why, kept;
    // Two frames: one body, the two texts in turn.
    std::string two = zstd("first ") + zstd("second");
    ASSERT_EQ(decode_body("zstd", &two, 1000, &why, &kept), DecodeOutcome::Ok) << why;
    EXPECT_EQ(two, "first second");
    EXPECT_TRUE(kept.empty());
    // No declared size.
    const std::string text(300000, 'r');
    std::string streamed = zstd_streamed(text);
    ASSERT_EQ(ZSTD_getFrameContentSize(streamed.data(), streamed.size()), ZSTD_CONTENTSIZE_UNKNOWN);
    ASSERT_EQ(decode_body("zstd", &streamed, 1 << 20, &why, &kept), DecodeOutcome::Ok) << why;
    EXPECT_EQ(streamed, text);
    EXPECT_TRUE(kept.empty());
    // A skippable frame ahead of the data (magic 0x184D2A50, 4-byte length).
    std::string skippable = std::string("\x50\x2a\x4d\x18\x03\x00\x00\x00xyz", 11) + zstd("after");
    ASSERT_EQ(decode_body("zstd", &skippable, 1000, &why, &kept), DecodeOutcome::Ok) << why;
    EXPECT_EQ(skippable, "after");
    EXPECT_TRUE(kept.empty());
}

TEST(BodyDecoding, AZstdBombStopsAtTheLimitWhateverItDeclares) {
    const std::string big(50u << 20, ' ');
    for (const std::string &bomb : {zstd(big, 3), zstd_streamed(big)}) {
        ASSERT_LT(bomb.size(), 100000u);
        std::string body = bomb, why, kept;
        EXPECT_EQ(decode_body("zstd", &body, 1000000, &why, &kept), DecodeOutcome::TooLarge);
        EXPECT_EQ(body, bomb);
        EXPECT_TRUE(kept.empty());
        EXPECT_NE(why.find("1000000"), std::string::npos) << why;
    }
}

TEST(BodyDecoding, AZstdFrameWhoseDeclaredSizeLiesIsRefused) {
    const std::string honest = zstd(std::string(5000, 'z'), 3);
    // Frame header: magic, then the descriptor byte; with single-segment set
    // (bit 5) and a size field flag of 1, a 2-byte size follows, less 256.
    ASSERT_EQ(static_cast<unsigned char>(honest[4]) & 0xE0, 0x60);
    for (unsigned claimed : {1000u, 9000u}) {
        std::string body = honest, why, kept;
        body[5] = static_cast<char>((claimed - 256) & 0xFF);
        body[6] = static_cast<char>((claimed - 256) >> 8);
        ASSERT_EQ(ZSTD_getFrameContentSize(body.data(), body.size()), claimed);
        EXPECT_EQ(decode_body("zstd", &body, 1 << 20, &why, &kept), DecodeOutcome::Corrupt) << claimed;
        EXPECT_TRUE(kept.empty());
    }
}

TEST(BodyDecoding, AZstdWindowOverTheCapIsRefused) {
    // 128 MiB of window for 1 KB of data: a decoder would have to hold it.
    std::string body = zstd_streamed(std::string(1000, 'w'), 27), why;
    EXPECT_EQ(decode_body("zstd", &body, 1 << 20, &why), DecodeOutcome::TooLarge);
    EXPECT_NE(why.find("window"), std::string::npos) << why;
}

TEST(BodyDecoding, CorruptAndTruncatedZstdIsRefused) {
    std::string why, kept, varied;
    for (int i = 0; i < 2000; ++i) varied += std::to_string(i * 7919 % 10007) + ",";
    const std::string whole = zstd(varied);
    for (std::string body : {std::string("not zstd at all"), std::string(), whole.substr(0, whole.size() / 2),
                             zstd("data") + "trailing bytes"}) {
        const std::string sent = body;
        EXPECT_EQ(decode_body("zstd", &body, 100000, &why, &kept), DecodeOutcome::Corrupt) << sent.size();
        EXPECT_EQ(body, sent);
        EXPECT_TRUE(kept.empty());
    }
}

}  // namespace
}  // namespace gmserver
