"""Conditional check, fourth round: words that only look like conditions.

Each case comes from a kind of false flag the unseen domains' train wordings showed (streaming,
pharmacy, gym): a deadline inside an "if" clause is the condition's own term, not a value under it; a
group defined by an age is named by that age; the first age of a range is an age too; a tier word after
another noun is that thing's class ("a special courier"), nobody's tier; a preposition is no group's
name. The policies are written for these tests (a pharmacy, a clinic, a video service, a florist), not
taken from the simulator; each has its hard positive beside it.
"""

from __future__ import annotations

import pytest

from monitor.conditional import ConditionalRules

PRICE_GUARANTEE_FA = (
    "تضمین قیمت: اگر ظرف ۴۸ ساعت پس از خرید، قیمت همان کالا در فروشگاه کاهش یابد، مابه‌التفاوت به "
    "کیف پول شما برگردانده می‌شود."
)
PRICE_GUARANTEE_EN = (
    "Price promise: if within 48 hours of purchase the price of the same item drops, we refund the "
    "difference. Members of the Bloom Club get 96 hours."
)
SENIORS_FA = (
    "تخفیف سالمندان: مشتریان ۶۰ سال به بالا با ثبت کد ملی، ۸ درصد تخفیف روی داروهای بدون نسخه دارند. "
    "سایر مشتریان ۳ درصد تخفیف می‌گیرند."
)
STUDENTS_ZH = "学生会员每月15元，仅限年满18周岁且不超过26周岁的全日制在校学生。普通会员每月30元。"
COLD_CHAIN_FA = (
    "داروهای یخچالی فقط به سه شهر تهران، تبریز و رشت ارسال می‌شوند، با پیک ویژه و کیف خنک. این سفارش‌ها "
    "ظرف ۵ ساعت تحویل می‌شوند. ارسال عادی ۲ روز کاری طول می‌کشد."
)
PHARMACIST_FA = (
    "CL-3 مشاوره ویژه طلایی: اعضای باشگاه طلایی به‌صورت شبانه‌روزی (۲۴ ساعته، هفت روز هفته) به چت داروساز "
    "دسترسی دارند. سایر مشتریان از ساعت ۸ تا ۲۲ پاسخ می‌گیرند."
)
FREE_SHIPPING_FA = (
    "ارسال رایگان برای سفارش‌های بالای ۶۰۰ هزار تومان. اعضای باشگاه طلایی: ارسال رایگان از ۲۰۰ هزار تومان."
)
PLANS_ZH = (
    "会员价格：连续包月每月25元、单月购买30元、年卡每年248元。新用户首次开通连续包月可享受7天免费试用。"
)
HOURS_EN = "Opening hours: Monday to Friday 6am to 9pm; weekends 8am to 4pm."
FIRST_YEAR_ZH = "PLUS会员年费每年99元；新用户首次开通仅限首年69元。"
WARRANTY_ZH = (
    "【保修期限】各品类整机保修期如下：\n小家电（电饭煲、吸尘器等）：1年\n冰箱、洗衣机、电视：3年\n空调：6年\n"
    "金卡会员购买的冰箱、洗衣机、电视，整机保修期延长至5年。"
)
SUPER_TIER_ZH = "SB-2 超级VIP专享权益。超级VIP离线缓存上限为300集；普通会员上限为50集。"
INVOICE_ZH = (
    "会员订单可在支付后90天内，于「会员中心—订单」开具电子发票，发票将在2个工作日内发送至邮箱。"
    "退款5个工作日内到账。"
)


@pytest.mark.parametrize(
    ("question", "answer", "context"),
    [
        # "if within 48 hours ... the price drops": what the condition says, not a value under it
        (
            "age gheymat kam beshe pool pas midin?",
            "تا ۴۸ ساعت بعد از خرید؛ مابه‌التفاوت به کیف پول برمی‌گردد.",
            PRICE_GUARANTEE_FA,
        ),
        (
            "price drop after i buy?",
            "If the price drops within 48 hours, we refund the difference.",
            PRICE_GUARANTEE_EN,
        ),
        # a group defined by an age is named by the age, said either way
        ("۶۵ سالمه، تخفیف دارید؟", "۸ درصد روی داروهای بدون نسخه، با ثبت کد ملی.", SENIORS_FA),
        ("takhfif baraye afrad bala 60?", "۸٪ برای افراد ۶۰+ روی داروهای بدون نسخه.", SENIORS_FA),
        # an age range states both its ends: "18-26 tuổi" is the students' condition
        ("dieu kien hoi vien sinh vien", "Sinh viên chính quy 18-26 tuổi, 15 tệ mỗi tháng.", STUDENTS_ZH),
        # "with a special courier": the courier's class, not a tier the customer must hold
        (
            "chand saat tool mikeshe insulin beresad?",
            "فقط تهران، تبریز و رشت؛ ظرف ۵ ساعت تحویل می‌شود.",
            COLD_CHAIN_FA,
        ),
        # "于「会员中心」": a place to do it, no group named "于"
        ("发票多久能到", "支付后90天内申请，2个工作日内发到邮箱。", INVOICE_ZH),
        # the gold members named in Vietnamese or in Finglish carry the Persian policy's "طلایی"
        ("freeship tu bao nhieu", "Thành viên Vàng được miễn phí ship từ 200 nghìn toman.", FREE_SHIPPING_FA),
        ("ozv e talaei ersal majani az chand?", "از دویست هزار تومان به بالا.", FREE_SHIPPING_FA),
        # a renewal said monthly states the monthly plan, in any language
        ("how much is vip", "It is 25 yuan a month on auto-renewal, 30 yuan for a single month.", PLANS_ZH),
        ("vip gia bao nhieu", "Gia hạn hàng tháng 25 tệ, mua 1 tháng 30 tệ, gói năm 248 tệ.", PLANS_ZH),
        ("free trial?", "The free trial is 7 days when you first start monthly auto-renewal.", PLANS_ZH),
        # weekdays, first years and goods named in another language than the policy
        ("几点开门", "平日6am至9pm，周末8am至4pm。", HOURS_EN),
        (
            "PLUS bao nhieu",
            "Người dùng mới đăng ký lần đầu trả 69 tệ cho năm đầu, sau đó 99 tệ/năm.",
            FIRST_YEAR_ZH,
        ),
        (
            "warranty on a new fridge?",
            "A 3-year warranty on the whole fridge, counted from delivery.",
            WARRANTY_ZH,
        ),
    ],
)
def test_words_that_only_look_like_conditions_pass(
    rules: ConditionalRules, question: str, answer: str, context: str
) -> None:
    assert rules.check(question, answer, [context]).findings == ()


@pytest.mark.parametrize(
    ("question", "answer", "context"),
    [
        # the members' longer promise told to everyone is still the exception stated as general
        ("price drop after i buy?", "You have 96 hours to claim the difference.", PRICE_GUARANTEE_EN),
        # the seniors' discount told to a customer who gives no age
        ("takhfif darid?", "۸ درصد تخفیف روی داروهای بدون نسخه می‌گیرید.", SENIORS_FA),
        # the students' price told to everyone
        ("hoi vien bao nhieu tien 1 thang", "Hội viên 15 tệ mỗi tháng.", STUDENTS_ZH),
        # a tier opening its clause after a section label still scopes what follows ("超级VIP专享权益。")
        ("离线缓存能存几集", "离线缓存上限为300集。", SUPER_TIER_ZH),
        # a bracket restating the gold members' round-the-clock hours holds for them alone too
        ("pharmacist chat hours?", "A pharmacist answers 24 hours a day.", PHARMACIST_FA),
        ("ersal majani az chand?", "ارسال رایگان از ۲۰۰ هزار تومان است.", FREE_SHIPPING_FA),
        # the monthly plan's price with no plan named
        ("how much is vip", "VIP costs 25 yuan a month.", PLANS_ZH),
        ("free trial?", "The free trial is 7 days.", PLANS_ZH),
        ("几点开门", "每天6am至9pm。", HOURS_EN),
        ("PLUS bao nhieu", "PLUS 69 tệ mỗi năm.", FIRST_YEAR_ZH),
        ("warranty on a kettle?", "Kettles have a 3-year warranty.", WARRANTY_ZH),
        ("warranty?", "3 years on everything.", WARRANTY_ZH),
    ],
)
def test_the_exceptions_beside_them_are_still_found(
    rules: ConditionalRules, question: str, answer: str, context: str
) -> None:
    assert rules.check(question, answer, [context]).findings


def test_a_section_labels_number_is_no_count(rules: ConditionalRules) -> None:
    assert rules._quantities("CL-3 مشاوره دارویی") == []
    assert [q.text for q in rules._quantities("Gói 3 buổi tập")] == ["3 buổi"]


def test_the_first_age_of_a_range_is_an_age(rules: ConditionalRules) -> None:
    ages = {
        text: sorted(float(q.value) for q in rules._quantities(text) if q.unit == "year")
        for text in ("16-24 tuổi", "từ 16 đến 24 tuổi", "16至24周岁", "aged 18 to 26 years old")
    }
    assert ages == {
        "16-24 tuổi": [16.0, 24.0],
        "từ 16 đến 24 tuổi": [16.0, 24.0],
        "16至24周岁": [16.0, 24.0],
        "aged 18 to 26 years old": [18.0, 26.0],
    }
