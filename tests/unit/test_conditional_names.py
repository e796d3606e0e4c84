"""Conditional check, fifth round: how a policy names its cases, and counts written in words.

The cases come from kinds of misses and false flags the unseen domains' train wordings showed
(streaming, pharmacy): a tier named with a word glued before it ("超级VIP") is not every "VIP"; a short
name one chunk gives a group in brackets ("超级VIP（SVIP）") names it in every chunk; a bracket after a
group that says what it includes ("（含学生会员）") is no condition of its own; a count written in Chinese
numerals ("四台", "三位") is a count like "4台"; seconds are a unit; "4K" beside Chinese text is a
resolution, not 4,000 đồng; a threshold in a part with a value of its own ("free shipping over X, and
a 30-day return window") governs that part only. The policies are written for these tests (a video
service, a music app, a bookshop, a pharmacy), not taken from the simulator; each false flag has its
hard positive beside it.
"""

from __future__ import annotations

from decimal import Decimal

import pytest

from monitor.conditional import ConditionalRules
from monitor.numeric import NumericRules

TIERS_ZH = [
    "HY-1. 会员分为普通会员、黄金VIP和超级VIP（SVIP）三个等级。超级VIP（SVIP）连续包月每月45元。",
    "SB-2. 超级VIP同一时间最多四台设备同时播放。SB-1. 黄金VIP（含学生会员）同一时间最多两台设备同时播放。"
    "普通会员同一时间仅限一台设备播放。",
]
FAMILY_ZH = ["JT-1. 家庭共享仅适用于年卡用户：主账号最多可邀请三位家庭成员共享权益。月卡用户不支持家庭共享。"]
ADS_ZH = ["GG-1. 免费用户每首歌前的广告不超过三十秒；音乐会员免除全部广告。"]
ADS_EN = ["AD-1. Free users hear at most 30 seconds of ads before a song; Premium members hear none."]
RESOLUTION_ZH = ["QX-1. 超级VIP最高支持4K画质；黄金VIP最高1080P。"]
GOLD_CLUB_FA = [
    "CL-2. مزایای اعضای باشگاه طلایی: ارسال رایگان در سراسر کشور برای سفارش‌های بالای ۲۰۰ هزار تومان، و "
    "مهلت مرجوعی ۳۰ روز پس از تحویل برای محصولات بدون نسخه با بسته‌بندی باز نشده.",
    "RT-1. محصولات بدون نسخه را می‌توانید تا ۷ روز پس از تحویل مرجوع کنید.",
]
READERS_EN = [
    "Over $50, shipping is free. Standard shipping costs $6.",
]
# a scope set on a subject, in a clause with values of its own, goes on for the sentences naming it
SAME_DAY_FA = [
    "DL-3 ارسال همان‌روز (سریع) تنها در شهر شیراز و برای سفارش‌هایی ارائه می‌شود که تا ساعت ۱۴ ثبت شوند. "
    "سفارش سریع ظرف ۴ ساعت تحویل می‌شود. ارسال عادی ۲ روز کاری طول می‌کشد."
]
SAME_DAY_EN = [
    "DL-3 Same-day courier is offered only in Leeds, for orders placed by 2 pm. Same-day parcels arrive "
    "within 4 hours. Standard delivery takes 2 business days."
]
# a ";" part that names no case of its own speaks of who its sentence opened with
SUPER_TIER_PARTS_ZH = [
    "QY-2. 钻石会员专享权益。钻石会员同一时间最多五台设备同时播放；离线缓存上限为三百集。"
    "QY-1. 普通会员离线缓存上限为五十集。"
]
# two tier words in a row are one name ("黄金VIP"): the customer's "黄金会员" names it
GOLD_TIER_ZH = ["QX-3. 黄金VIP最高可观看1080P蓝光清晰度，普通会员最高720P。"]
# a size's numbers ("56 x 36 x 23 cm") are one size, not things counted as "x"
CARRY_ON_VI = [
    "HL-1. Hành lý xách tay tối đa 7 kg, kích thước không quá 56 x 36 x 23 cm, được mang thêm 1 túi nhỏ "
    "(không quá 40 x 30 x 10 cm). Hạng Thương gia được mang 2 kiện xách tay."
]
# a clause opening with a list of goods and no value names the case of its value
EXTENDED_WARRANTY_ZH = [
    "YB-1 【延保】延保须在签收之日起60天内购买；冰箱、洗衣机、空调等大家电，购买期限放宽至120天。"
]
HOTLINE_ZH = ["KF-1 客服热线每天上午9点至下午6点，节假日照常服务；app在线客服24小时在线。"]


@pytest.mark.parametrize(
    ("question", "answer", "chunks"),
    [
        # the short name the policy gives the tier, used by the customer or the answer
        ("SVIP能几台设备同时看", "可以4台一起看。", TIERS_ZH),
        ("几台设备能同时看", "SVIP可以4台一起看。", TIERS_ZH),
        # a student member is a 黄金VIP member: "（含学生会员）" names who the tier includes
        ("学生会员能几台设备同时看", "两台。", TIERS_ZH),
        # seconds: the free listener's limit, asked by a free listener
        ("免费用户广告多长", "免费用户每首歌前最多三十秒广告。", ADS_ZH),
        ("how long are the ads for free users", "Free users hear up to 30 seconds of ads.", ADS_EN),
        # the threshold belongs to free shipping, not to the return window of its next part
        ("اعضای طلایی چند روز مهلت مرجوعی دارن؟", "اعضای طلایی ۳۰ روز مهلت مرجوعی دارند.", GOLD_CLUB_FA),
        ("is shipping free over $50", "Yes, over $50 shipping is free.", READERS_EN),
        # the scope carried on, asked with its place; another subject after ";" keeps its own value
        ("ارسال سریع در شیراز چند ساعته است؟", "در شیراز ظرف ۴ ساعت می‌رسد.", SAME_DAY_FA),
        ("same-day in Leeds how fast", "In Leeds, same-day parcels arrive within 4 hours.", SAME_DAY_EN),
        ("钻石会员能缓存几集", "钻石会员可以缓存三百集。", SUPER_TIER_PARTS_ZH),
        ("app客服几点", "app在线客服24小时在线。", HOTLINE_ZH),
        ("黄金会员清晰度", "黄金会员最高1080P，建议网速10Mbps以上。", GOLD_TIER_ZH),
        ("冰箱延保多久内买", "冰箱可以在120天内买延保。", EXTENDED_WARRANTY_ZH),
        ("xach tay may kg", "Tối đa 7 kg, cỡ không quá 56 x 36 x 23 cm, thêm 1 túi nhỏ.", CARRY_ON_VI),
    ],
)
def test_named_cases_that_are_carried_pass(
    rules: ConditionalRules, question: str, answer: str, chunks: list[str]
) -> None:
    assert rules.check(question, answer, chunks).findings == ()


@pytest.mark.parametrize(
    ("question", "answer", "chunks", "value"),
    [
        # "VIP" alone is every tier: the 4 screens are the super tier's, stated as the gold tier's
        ("几台设备能同时看", "黄金VIP可以4台一起看。", TIERS_ZH, "4台"),
        ("几台设备能同时看", "同时播放上限是4台，三个人一起看没问题。", TIERS_ZH, "4台"),
        # counts written in numerals are read: "三位" supports "3 người", for year-card users only
        ("爸妈能用我的会员吗", "每个会员都可以邀请三位家人共享。", FAMILY_ZH, "三位"),
        # seconds: the free listener's limit told to everyone
        ("广告多长", "每首歌前的广告最多三十秒。", ADS_ZH, "三十秒"),
        ("how long are the ads", "Everyone hears up to 30 seconds of ads.", ADS_EN, "30 seconds"),
        # "4K" is the super tier's resolution, not 4,000 đồng
        ("能看4K吗", "黄金VIP也能看4K。", RESOLUTION_ZH, "4K"),
        # the Gold club's 30 days told to everyone is still found
        ("چند روز مهلت مرجوعی دارم؟", "مهلت مرجوعی ۳۰ روز پس از تحویل است.", GOLD_CLUB_FA, "۳۰ روز"),
        # the city's 4 hours told to every city
        ("ارسال سریع چند ساعته است؟", "سفارش سریع ظرف ۴ ساعت تحویل می‌شود.", SAME_DAY_FA, "۴ ساعت"),
        ("how fast is same-day", "Same-day parcels arrive within 4 hours.", SAME_DAY_EN, "4 hours"),
        # the top tier's cache, after ";", told to everyone
        ("能缓存几集", "每个账号可以缓存300集。", SUPER_TIER_PARTS_ZH, "300集"),
        ("清晰度多少", "最高可以看1080P。", GOLD_TIER_ZH, "1080P"),
        ("xach tay may kien", "Mỗi khách được mang 2 kiện xách tay.", CARRY_ON_VI, "2 kiện"),
        ("延保多久内买", "延保须在签收后120天内购买。", EXTENDED_WARRANTY_ZH, "120天"),
    ],
)
def test_the_cases_they_name_are_still_found(
    rules: ConditionalRules, question: str, answer: str, chunks: list[str], value: str
) -> None:
    findings = rules.check(question, answer, chunks).findings
    assert [f.text for f in findings] == [value]


@pytest.mark.parametrize(
    ("text", "value", "unit"),
    [
        ("最多四台设备", Decimal(4), "count:台"),
        ("缓存四百集", Decimal(400), "count:集"),
        ("两张兑换券", Decimal(2), "count:张"),
    ],
)
def test_counts_in_chinese_numerals_are_counts(
    rules: ConditionalRules, text: str, value: Decimal, unit: str
) -> None:
    assert [(q.value, q.unit) for _, _, q in rules._found(text)] == [(value, unit)]


@pytest.mark.parametrize("text", ["十分抱歉", "千万不要错过", "一起看", "第三次"])
def test_words_written_with_numerals_count_nothing(rules: ConditionalRules, text: str) -> None:
    assert rules._found(text) == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("每集片头广告不超过七十五秒", [(Decimal(75), "second")]),
        ("tối đa 75 giây", [(Decimal(75), "second")]),
        ("۷۵ ثانیه", [(Decimal(75), "second")]),
        ("75 seconds", [(Decimal(75), "second")]),
        ("4K超高清", []),
        ("黄金VIP投屏可以到4K。", []),
        ("phí ship 30K", [(Decimal(30000), "VND")]),
    ],
)
def test_seconds_are_a_unit_and_4k_beside_chinese_is_no_price(text: str, expected: list[object]) -> None:
    assert [(q.value, q.unit) for q in NumericRules.load().extract(text)] == expected
