"""Rule ids: each names one sentence of the Design Doc or ADR-0044 that a scenario checks.

Scenarios carry `@pytest.mark.rules("id", ...)`; the reference's fault catalog
(fixtures/reference/faults.toml) names the rule each fault breaks; `python -m harness rules`
and the Verification report read this table.
"""

from __future__ import annotations

from dataclasses import dataclass

from harness import tools

DD = "Design Doc「AI からの操作」"
ADR = "ADR-0044"
SOURCES = {"DD": DD, "ADR": ADR}  # what a descriptor's rules name their source by


@dataclass(frozen=True)
class Rule:
    id: str
    source: str
    section: str
    text: str


def _rules(source: str, section: str, *pairs: tuple[str, str]) -> tuple[Rule, ...]:
    return tuple(Rule(rule_id, source, section, text) for rule_id, text in pairs)


RULES: tuple[Rule, ...] = (
    _rules(
        DD,
        "許可のスイッチ",
        ("switch.control", "ヘッダの右端に、ラベル「AI からの操作」の Switch を置く"),
        ("switch.default-off", "デフォルトはオフである"),
        ("switch.no-status-text", "スイッチのほかに、オンかオフかを示す文言を足さない"),
        ("switch.on-registers", "オンにすると、スクリプトを読み込み、操作を登録し、記録の欄を出す"),
        (
            "switch.on-order",
            "オンにすると、localStorage に期限を書き、polyfill と relay のスクリプトを読み込み、操作を登録する(この順に)",
        ),
        ("switch.off-unregisters", "オフに戻すと、登録を解除し、記録の欄を隠す"),
        (
            "switch.start-failure",
            "スクリプトを読み込めないときは、スイッチをオフに戻し、題「AI からの操作を始められません」と理由の "
            "Notice(danger、isAlert)を、スイッチの下に出す",
        ),
        ("switch.start-failure-refused", "登録が拒否されたときも、スイッチをオフに戻し、同じ Notice を出す"),
        ("switch.start-failure-stored-on", "保存してあったオンでページを開いたときに始められないときも、同じである"),
        ("switch.off-running-continues", "オフに戻しても、実行が始まっている操作は止めず、結果を記録の store に足す"),
    )
    + _rules(
        DD,
        "登録から実行まで",
        ("registration.operations", "そのツールの操作を、名前、注釈、入力の schema のとおりに登録する"),
        ("registration.stored-on", "スイッチのオンを保存してあるページでは、開いたときに登録する"),
        ("registration.polyfill-always", "polyfill は、ブラウザが document.modelContext を持つときも読み込む"),
        ("registration.scripts-when-on", "2 つのスクリプトは、スイッチがオンのときにだけ読み込む"),
        ("call.after-expiry", "呼び出しが届いたときに期限を過ぎていれば、スイッチをオフにし、declined を返す"),
        ("call.check-first", "check は確認の画面より前に呼ぶ"),
        (
            "call.declined-runs-nothing",
            "確定のボタンが押されなかった呼び出しは execute を呼ばない: 確認を待つ間も、断った後も、対象は変わらない",
        ),
        (
            "call.expiry-before-input",
            "届いた呼び出しは、スイッチの期限を見てから inputSchema で検証する: 期限を過ぎていれば、入力が合わなくても declined",
        ),
    )
    + _rules(
        DD,
        "入力と結果",
        ("input.no-extra-properties", "型に無い項目があるときは、invalid_input を返す"),
        ("input.schema", "inputSchema に合わない入力は invalid_input を返す"),
        ("result.json-string", "操作は、成功でも失敗でも JSON の文字列を返し、例外を投げない"),
        ("result.exception-failed", "check と execute が投げた例外は failed にする"),
        (
            "result.failure-shape",
            '失敗は {"ok":false,"error":{"code":"<種類>","message":"<理由の文>"}} で、code は 7 つの種類のどれかである',
        ),
        ("limits.one-megabyte", "markdown、xml、cells などは UTF-8 で 1 MB までで、超えると too_large"),
        (
            "result.reads-unbounded",
            "読み取りの結果で大きさの上限を持つのは contents、entries、output、rows だけで、"
            "図とスライドの読み取りは、どれほど大きくても全てを返す",
        ),
    )
    + _rules(
        DD,
        "スイッチと確認の状態の保存",
        ("storage.shape", "キーは fd-ai-operations:<ツール>、値は {v:1, enabledUntil, skipConfirmUntil}"),
        (
            "storage.only-key",
            "スイッチと「このページでは今後尋ねない」の状態は、localStorage の fd-ai-operations:<ツール> の "
            "1 つのキーに保存し、ほかのキーにも IndexedDB にも書かない",
        ),
        ("storage.enabled-until", "enabledUntil は、スイッチをオンにした時刻の 7 日後である"),
        (
            "storage.skip-keeps-enabled",
            "「このページでは今後尋ねない」を選んでも enabledUntil は変わらない: その状態が続くのは、"
            "選んでから 7 日と、スイッチがオフになるまでの、短い方である",
        ),
        ("storage.no-extension", "ページを開いても、期限を延ばさない"),
        ("storage.invalid-removed", "キーが無い、読めない、型に合わない、期限切れの値はオフとして扱い、キーを消す"),
        ("storage.off-removes", "スイッチをオフにしたときは、キーを消す"),
        ("storage.expiry-while-open", "開いている間に enabledUntil が来たら、オフにし、登録を解除する"),
        ("storage.skip-expiry", "skipConfirmUntil を過ぎているときは、確認を出す状態に戻す"),
        ("storage.cross-tab", "storage のイベントで、ほかのタブが書いたスイッチの値を、自分のタブにも反映する"),
        ("storage.cross-tab-skip", "ほかのタブで選んだ「このページでは今後尋ねない」も、自分のタブに反映する"),
        (
            "storage.skip-cleared-on-off",
            "オフにすると「このページでは今後尋ねない」の状態も消え、オンに戻すと確認を出す状態から始まる",
        ),
        (
            "storage.skip-cleared-on-expiry",
            "期限でオフになったときも、「このページでは今後尋ねない」の状態は消え、オンに戻すと確認を出す",
        ),
        ("storage.unavailable", "localStorage を読み書きできないときは、ページを開いている間だけ働く"),
    )
    + _rules(
        DD,
        "操作を公開するページ",
        ("embedding.no-registration", "埋め込みのときは、保存した状態を読まず、スクリプトの読み込みと登録を行わない"),
        ("embedding.no-header", "埋め込みのページはヘッダを出さないので、スイッチも出ない"),
    )
    + _rules(
        DD,
        "確認の画面",
        ("confirm.which", "確認の画面は、confirmation を持つ 5 つの操作にだけ出す"),
        ("confirm.title-action", "題と確定のボタンの文は、操作ごとの表のとおりにする"),
        (
            "confirm.body",
            "本文に、エージェントが呼んだこと、操作の名前、summary、元に戻せないこと(または「元に戻す」で戻せること)を書く",
        ),
        ("confirm.detail", "渡された内容の全文は、Disclosure を開くと読める"),
        ("confirm.checkbox", "Checkbox「このページでは今後尋ねない」を置き、デフォルトはチェックなし"),
        (
            "confirm.buttons-focus",
            "ボタンは「やめる」(secondary)と確定のボタン(danger)で、開いたときのフォーカスは「やめる」",
        ),
        ("confirm.busy", "確定の後は、実行が終わるまで読み込み中にし、閉じず、終わると閉じる"),
        ("confirm.skip", "チェックして確定すると、そのツールでは以後確認を出さない(skipConfirmUntil = 7 日後)"),
        ("confirm.cancel-keeps-asking", "「やめる」を押したときは、チェックを保存しない"),
        ("confirm.decline", "「やめる」、Esc、背景のクリックは declined を返す"),
        ("confirm.queue", "確認は届いた順に 1 つずつ出し、確認を出さない操作は待たせない"),
        ("confirm.timeout", "届いてから 50 秒で declined を返し、確認が出ていれば閉じる"),
        ("confirm.timeout-queued", "順番を待つ間に 50 秒が過ぎた呼び出しは、確認を出さずに declined を返す"),
        (
            "confirm.switch-off",
            "オフにすると、確認を待つ呼び出しと順番を待つ呼び出しに declined を返し、確認の画面を閉じる",
        ),
        ("confirm.background-tab", "確認の画面は、バックグラウンドのタブでも開く"),
    )
    + _rules(
        DD,
        "操作の記録の欄",
        ("log.visibility", '記録の欄は、スイッチがオンの間だけ出し、role="log" を持つ'),
        ("log.collapsible", "欄は開閉でき、閉じている間は題と最後の 1 行だけを出す"),
        (
            "log.connect-help",
            "欄の先頭の Disclosure「AI のエージェントのつなぎ方」に --widget-origin <ページの origin> を書く",
        ),
        ("log.row", "1 行に、時刻、操作の名前、引数の要約(80 文字)、StatusBadge、結果の要約(80 文字)を出す"),
        (
            "log.badge",
            "ok は成功(success)、declined は中止(neutral)、ほかの code は失敗(danger)の StatusBadge で、文字でも出す",
        ),
        (
            "log.detail",
            "行を開くと、引数と結果の全文を読める。JSON の文字列の中の Markdown と XML は、エスケープを解除して出す",
        ),
        ("log.detail-limit", "開いた行の引数と結果は、それぞれ 10,000 文字までを出す"),
        ("log.text-only", "引数と結果は文字として出し、HTML として描かない"),
        ("log.order", "新しい行は、下に足す"),
        (
            "log.decided-only",
            "確認を待っている呼び出しは出さず、結果が決まったときに 1 件足す。失敗と declined で終わった呼び出しも足す",
        ),
        ("log.running-hidden", "実行中の呼び出しは、結果が決まるまで欄に出さない"),
        ("log.memory-only", "記録は、メモリにだけ持ち、localStorage と IndexedDB に書かない"),
        ("log.capacity", "200 件までを持ち、超えた古い記録を消す"),
        ("log.lifetime", "オフにしても残り、オンに戻すと出る。読み込み直すと消える"),
    )
    + _rules(
        DD,
        "操作の一覧",
        ("relay.names", "relay は名前を [a-zA-Z0-9_] に直して、MCP のクライアントに見せる"),
        (
            "relay.two-tabs",
            "2 つのタブは、タブの ID の短い文字列と、説明の先頭のページのタイトルと、document で見分けられる",
        ),
        ("relay.tools-follow-page", "スイッチをオフにするかタブを閉じると、relay の一覧から操作が消える"),
    )
    + _rules(
        ADR,
        "Decision 3 / Verification",
        ("relay.widget-origin", "--widget-origin に無い origin のページは、relay に拒否される"),
        ("relay.input-validation", "enum に無い値は、relay が検証して「Input validation error」を返す"),
        ("relay.annotations", "注釈(Decision 4)が、relay を通しても読める"),
        ("relay.calls", "relay と MCP のクライアント(SDK)から、操作を呼べる"),
    )
    + _rules(
        ADR,
        "Verification(呼び方)",
        (
            "calls.every-operation",
            "ページの中の API、拡張機能の content script、ブラウザ自身の WebMCP のそれぞれから、"
            "操作を一覧にして全てを呼べる(後の 2 つは、フラグを有効にしたブラウザで)",
        ),
    )
    + _rules(
        DD,
        "ツールのページの、スイッチと記録の欄の位置、タイトル、ディレクトリの名前",
        ("page.title", "ツールのページは、<title> に開いているものの名前を入れる。図とスライドは、その名前である"),
        (
            "page.log-at-bottom",
            "SQL、Go、スライド、Excalidraw、draw.io のツールのページは、下端に、操作の記録の欄を置く",
        ),
    )
    + _rules(
        ADR,
        "Context",
        ("page.isolation-headers", "isolation のヘッダ(COOP と COEP)は、Node の実行環境のパスにだけ返す"),
    )
    + _rules(
        ADR,
        "Decision 2",
        (
            "page.no-origin-trial",
            '本番に、origin trial のトークンを入れない(<meta http-equiv="origin-trial"> も Origin-Trial ヘッダも無い)',
        ),
    )
    + _rules(
        ADR,
        "Verification(通信)",
        ("network.local-only", "ページの外へのリクエストは、127.0.0.1 への WebSocket だけである"),
    )
    + _rules(
        ADR,
        "Consequences",
        (
            "network.no-content",
            "操作の内容は、ブラウザの中か、利用者の端末の relay を通る: 呼び出しの引数と結果を、"
            "サイトのサーバーにも、ほかのどこにも送らない",
        ),
    )
    + _rules(
        ADR,
        "Decision 4",
        ("operations.annotations", "23 個の操作の注釈は Decision 4 の表のとおりである"),
    )
    + _rules(
        DD,
        "コードの置き場",
        ("operations.description-ja", "操作の説明の文(description)は、日本語で書く"),
    )
    + _rules(
        DD,
        "操作の対象の図とスライド",
        ("canvas.open-document", "開いている図かスライドだけを対象にし、読み取りの結果の document はそれを指す"),
        (
            "canvas.not-ready",
            "開いている図かスライドが無いときと、ツールの読み込みが終わっていないときは、not_ready を返す",
        ),
    )
    # Each tool's own rules, from its descriptor (harness/tools/<tool>.py), in the tools' order.
    + tuple(
        Rule(rule_id, SOURCES[source], section, text)
        for tool in tools.TOOLS.values()
        for source, section, pairs in tool.rules
        for rule_id, text in pairs
    )
)

BY_ID = {rule.id: rule for rule in RULES}

assert len(BY_ID) == len(RULES), "rule ids must be unique"
