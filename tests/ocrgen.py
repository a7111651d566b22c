"""Image-only PDFs of known text, made in the tests: fixtures for OCR with a reference to score against.

Text is drawn with Pillow in Noto CJK (Debian's fonts-noto-cjk, which covers Hangul and Latin) at 300 dpi on
A4, 12-16 lines a page like a textbook, and saved as a PDF whose pages are only pictures: no text layer,
exactly what a scanner produces. ``scan_like`` adds what a flatbed adds (a slight tilt, blur and specks).
"""

from __future__ import annotations

import io
import random
from pathlib import Path

FONT_DIRS = (Path("/usr/share/fonts"), Path("/usr/local/share/fonts"))
FONT_FILES = {"serif": "NotoSerifCJK-Regular.ttc", "sans": "NotoSansCJK-Regular.ttc"}
DPI = 300
PAGE_INCHES = (8.27, 11.69)  # A4
MARGIN_INCHES = 1.0
BODY_POINTS = 11  # a textbook's body size
LINE_SPACING = 1.7  # Korean textbooks set lines loosely (160-180 %); Tesseract's --psm 3 drops lines at this
SCAN_TILT_DEGREES = 0.4  # what a page laid by hand on a flatbed is off by
SCAN_SPECKS = 3000  # dust and toner dots on an A4 page at 300 dpi

KOREAN_PAGES = [
    "컴퓨터의 중앙 처리 장치는 메모리에서 명령어를 하나씩 읽어 와서 해석하고 실행한다. "
    "이 과정을 명령어 사이클이라고 부르며, 인출과 해독과 실행의 세 단계로 나누어 설명하는 경우가 많다. "
    "레지스터는 처리 장치 안에 있는 작은 저장 공간으로, 메모리보다 훨씬 빠르게 읽고 쓸 수 있다. "
    "그래서 자주 사용하는 값은 레지스터에 두고 계산하는 것이 좋다. "
    "프로그램 카운터는 다음에 실행할 명령어의 주소를 가리키는 특별한 레지스터이다. "
    "분기 명령어는 이 값을 바꾸어 프로그램의 흐름을 다른 곳으로 옮긴다. "
    "반복문과 조건문은 모두 이러한 분기 명령어를 이용하여 만들어진다. "
    "메모리는 바이트 단위로 주소가 매겨진 긴 배열이라고 생각할 수 있다. "
    "처리 장치는 주소를 이용하여 원하는 위치의 값을 읽거나 새로운 값을 쓴다. "
    "캐시는 최근에 사용한 메모리의 내용을 처리 장치 가까이에 복사해 두는 장치이다. "
    "같은 값을 다시 읽을 때 캐시에 있으면 메모리까지 가지 않아도 되므로 시간이 크게 줄어든다. "
    "운영 체제는 여러 프로그램이 메모리와 처리 장치를 나누어 쓸 수 있도록 관리한다. "
    "각 프로그램은 자신만의 주소 공간을 가지므로 다른 프로그램의 데이터를 함부로 바꿀 수 없다. "
    "이러한 보호 기능 덕분에 한 프로그램의 오류가 전체 시스템을 멈추게 하는 일이 줄어든다.",
    "물은 섭씨 백 도에서 끓고 영 도에서 언다. 그러나 높은 산 위에서는 기압이 낮기 때문에 더 낮은 온도에서 끓는다. "
    "이처럼 물질의 상태는 온도뿐만 아니라 압력에 따라서도 달라진다. "
    "고체가 액체로 변하는 현상을 융해라고 하고, 액체가 기체로 변하는 현상을 기화라고 한다. "
    "기화에는 표면에서 천천히 일어나는 증발과 내부에서 활발하게 일어나는 끓음이 있다. "
    "상태가 변하는 동안에는 열을 계속 가해도 온도가 일정하게 유지된다. "
    "이때 흡수된 열은 분자 사이의 인력을 끊는 데 쓰이기 때문이다. "
    "반대로 기체가 액체로 변할 때에는 같은 양의 열을 주변으로 내놓는다. "
    "여름날 차가운 컵의 바깥쪽에 물방울이 맺히는 것은 공기 속의 수증기가 식어서 액체가 되기 때문이다. "
    "구름과 비와 이슬도 모두 이러한 응결 현상으로 설명할 수 있다. "
    "물질을 이루는 입자들은 끊임없이 움직이고 있으며, 온도가 높을수록 더 빠르게 움직인다. "
    "고체에서는 입자들이 제자리에서 진동하고, 액체에서는 서로 자리를 바꾸며 흘러 다닌다. "
    "기체의 입자들은 서로 멀리 떨어져 자유롭게 날아다니기 때문에 부피를 쉽게 줄일 수 있다. "
    "이러한 입자 모형은 눈에 보이지 않는 세계를 이해하는 데 큰 도움을 준다.",
    "조선 시대에는 백성이 억울한 일을 임금에게 직접 알릴 수 있도록 신문고를 설치하였다. "
    "하지만 실제로 신문고를 칠 수 있는 사람과 사건은 엄격하게 제한되어 있었다. "
    "세종은 훈민정음을 만들어 누구나 쉽게 글을 배우고 자신의 뜻을 표현할 수 있게 하였다. "
    "새 문자는 처음에 많은 반대에 부딪혔지만, 점차 편지와 소설과 노래에 널리 쓰이게 되었다. "
    "오늘날 우리는 이 문자를 한글이라고 부르며, 해마다 시월 구일을 한글날로 기념한다. "
    "한글은 소리의 원리에 따라 만들어진 과학적인 문자로 평가받는다. "
    "자음은 소리를 낼 때 혀와 입술과 목구멍의 모양을 본떠서 만들었다. "
    "모음은 하늘과 땅과 사람을 뜻하는 세 가지 기본 글자를 조합하여 만들었다. "
    "이렇게 적은 수의 기본 글자로 많은 소리를 나타낼 수 있다는 점이 한글의 큰 장점이다. "
    "세종 때에는 글자뿐만 아니라 과학 기술도 크게 발전하였다. "
    "해시계와 물시계가 만들어져 백성들이 정확한 시간을 알 수 있게 되었고, "
    "측우기로 비의 양을 재어 농사에 필요한 자료를 모았다. "
    "이러한 노력은 백성의 삶을 편안하게 하려는 뜻에서 나온 것이었다. "
    "역사를 공부할 때에는 사건의 결과뿐만 아니라 그 배경과 의도도 함께 살펴보아야 한다.",
]

ENGLISH_PAGES = [
    "A variable is a name that refers to a value. An assignment statement creates a new variable and gives it "
    "a value. Programmers generally choose names for their variables that are meaningful, because they document "
    "what the variable is used for. Variable names can be as long as you like and can contain both letters and "
    "numbers, but they cannot begin with a number. It is legal to use uppercase letters, but it is conventional "
    "to use only lowercase for variable names. The underscore character can appear in a name and is often used "
    "in names with multiple words, such as your name or airspeed of unladen swallow. If you give a variable an "
    "illegal name, you get a syntax error, and the interpreter tells you where it stopped reading. An expression "
    "is a combination of values, variables and operators. A value all by itself is considered an expression, and "
    "so is a variable. When you type an expression at the prompt, the interpreter evaluates it, which means that "
    "it finds the value of the expression. A statement is a unit of code that has an effect, like creating a "
    "variable or displaying a value. When you type a statement, the interpreter executes it, which means that it "
    "does whatever the statement says. In general, statements do not have values.",
    "Photosynthesis is the process by which green plants use the energy of sunlight to turn water and carbon "
    "dioxide into sugar and oxygen. It takes place mainly in the leaves, inside small structures called "
    "chloroplasts. The green pigment chlorophyll absorbs red and blue light and reflects green light, which is "
    "why most leaves look green to us. The sugar made in the leaves is carried to every part of the plant, "
    "where it is used for growth or stored as starch in roots and seeds. Almost all life on Earth depends on "
    "this process, directly or indirectly, for its food and for the oxygen in the air. Water enters the plant "
    "through its roots and travels up the stem in thin tubes. Carbon dioxide enters the leaves through tiny "
    "openings on their undersides, which can open and close to control how much water the plant loses. On a hot "
    "and dry day these openings close, and photosynthesis slows down. The rate of photosynthesis also depends on "
    "the brightness of the light and on the temperature. Farmers who grow vegetables in glasshouses can raise "
    "the level of carbon dioxide in the air to make their plants grow faster.",
    "The printing press with movable type spread across Europe in the second half of the fifteenth century. "
    "Before it, books were copied by hand, which made them rare and expensive. Printed books were cheaper and "
    "identical, so a scholar in one city could refer to the same page as a scholar in another. Within fifty "
    "years, presses were working in more than two hundred cities, and millions of books had been printed. "
    "The new technology helped to standardise spelling and grammar, and it gave ordinary readers access to "
    "texts that had once been kept in monasteries and universities. Pamphlets and news sheets could be printed "
    "in a few days and sold cheaply in the streets, so ideas travelled faster than ever before. Governments and "
    "churches soon tried to control what was printed, and some books were banned or burned. Printers moved "
    "from city to city to escape the censors, taking their skills and their type with them. Historians still "
    "argue about how much the press changed the way people thought, but few doubt that it changed how quickly "
    "they could share what they thought.",
]


def find_cjk_font(style: str = "serif") -> Path | None:
    """Return the Noto CJK collection for ``style`` ("serif" or "sans"), or None when fonts-noto-cjk is missing."""
    for directory in FONT_DIRS:
        for path in sorted(directory.rglob(FONT_FILES[style])) if directory.is_dir() else []:
            return path
    return None


def _korean_face(path: Path, size: int):
    """Load the Korean member of a CJK collection: the KR face draws Hangul and Hanja the Korean way."""
    from PIL import ImageFont

    for index in range(16):
        font = ImageFont.truetype(str(path), size, index=index)
        if font.getname()[0].endswith("CJK KR"):
            return font
    raise LookupError(f"{path} holds no Korean face")


def wrap(text: str, font, width: int) -> list[str]:
    """Break ``text`` into lines no wider than ``width`` pixels, at spaces (Korean breaks between words too)."""
    lines: list[str] = []
    line = ""
    for word in text.split():
        candidate = f"{line} {word}" if line else word
        if line and font.getlength(candidate) > width:
            lines.append(line)
            line = word
        else:
            line = candidate
    return [*lines, line] if line else lines


def render_page(
    text: str,
    *,
    style: str = "serif",
    points: float = BODY_POINTS,
    line_spacing: float = LINE_SPACING,
    scan_like: bool = False,
    seed: int = 0,
):
    """Return a 300 dpi grayscale A4 image of ``text`` and the lines as drawn (the OCR reference)."""
    from PIL import Image, ImageDraw

    font_path = find_cjk_font(style)
    if font_path is None:
        raise FileNotFoundError("no Noto CJK font: install Debian's fonts-noto-cjk")
    size = round(points * DPI / 72)
    font = _korean_face(font_path, size)
    width, height = (round(inches * DPI) for inches in PAGE_INCHES)
    margin = round(MARGIN_INCHES * DPI)
    lines = wrap(text, font, width - 2 * margin)
    image = Image.new("L", (width, height), 255)
    draw = ImageDraw.Draw(image)
    for index, line in enumerate(lines):
        draw.text((margin, margin + index * round(size * line_spacing)), line, font=font, fill=0)
    if scan_like:
        image = _as_scanned(image, seed)
    return image, lines


def _as_scanned(image, seed: int):
    """Tilt, blur and speckle a clean page the way a flatbed scan of a printout looks."""
    from PIL import ImageFilter

    randomness = random.Random(seed)
    image = image.rotate(SCAN_TILT_DEGREES, fillcolor=255).filter(ImageFilter.GaussianBlur(0.8))
    pixels = image.load()
    for _ in range(SCAN_SPECKS):
        pixels[randomness.randrange(image.width), randomness.randrange(image.height)] = randomness.randrange(0, 160)
    return image


def images_to_pdf(images: list) -> bytes:
    """Return a PDF whose pages are ``images`` at 300 dpi, with no text layer (like a scanner's output)."""
    out = io.BytesIO()
    images[0].save(out, "PDF", resolution=DPI, save_all=True, append_images=images[1:])
    return out.getvalue()


def scanned_pdf(texts: list[str], **options) -> tuple[bytes, list[str]]:
    """Return an image-only PDF with one page per text, and each page's reference text (its lines joined)."""
    rendered = [render_page(text, seed=number, **options) for number, text in enumerate(texts)]
    return images_to_pdf([image for image, _ in rendered]), ["\n".join(lines) for _, lines in rendered]


def join_pdfs(*documents: bytes) -> bytes:
    """Return one PDF with the pages of ``documents`` in order (for a text page followed by a scanned one)."""
    import pypdfium2 as pdfium

    joined = pdfium.PdfDocument.new()
    try:
        for data in documents:
            source = pdfium.PdfDocument(data)
            try:
                joined.import_pages(source)
            finally:
                source.close()
        out = io.BytesIO()
        joined.save(out)
        return out.getvalue()
    finally:
        joined.close()
