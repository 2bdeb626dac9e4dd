<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN" sourcelanguage="en">
<context>
    <name>CacheDirsPanel</name>
    <message>
        <source>&lt;b&gt;Cache base:&lt;/b&gt; %1 — %2</source>
        <translation>&lt;b&gt;缓存根目录：&lt;/b&gt;%1 — %2</translation>
    </message>
    <message>
        <source>&lt;b&gt;kernel_cache:&lt;/b&gt; %1</source>
        <translation>&lt;b&gt;kernel_cache：&lt;/b&gt;%1</translation>
    </message>
    <message>
        <source>&lt;b&gt;SoC dir of %1:&lt;/b&gt; %2</source>
        <translation>&lt;b&gt;%1 的 SoC 目录：&lt;/b&gt;%2</translation>
    </message>
    <message>
        <source>not set: %1</source>
        <translation>未设置：%1</translation>
    </message>
    <message>
        <source>Choose the cache directory</source>
        <translation>选择缓存目录</translation>
    </message>
</context>
<context>
    <name>CacheGauge</name>
    <message>
        <source>%1: %2 (%3 files) …</source>
        <translation>%1：%2（%3 个文件）…</translation>
    </message>
    <message>
        <source>%1: %2 (no limit: ageing is off)</source>
        <translation>%1：%2（无上限：未开启老化）</translation>
    </message>
    <message>
        <source>%1: %2 of %3 (%4 %)</source>
        <translation>%1：已用 %2，上限 %3（%4%）</translation>
    </message>
    <message>
        <source>next start empties it (%1)</source>
        <translation>下次启动将清空该目录（%1）</translation>
    </message>
    <message>
        <source>next start deletes nothing</source>
        <translation>下次启动不会删除任何文件</translation>
    </message>
    <message>
        <source>next start deletes only %1 of %2</source>
        <translation>下次启动只删除 %2 中的 %1</translation>
    </message>
    <message>
        <source>next start deletes %1</source>
        <translation>下次启动将删除 %1</translation>
    </message>
    <message>
        <source>Your choice: no limit (ageing off)</source>
        <translation>您的选择：不设上限（关闭老化）</translation>
    </message>
    <message>
        <source>Your choice: %1 MB, %2 % kept — %3 % of it</source>
        <translation>您的选择：%1 MB，保留 %2% — 已用其 %3%</translation>
    </message>
    <message>
        <source>a start would delete %1</source>
        <translation>启动时将删除 %1</translation>
    </message>
    <message>
        <source>CANN&apos;s own read refreshes these access times (%1 kernel groups kept): clean as CANN means to, or mount the cache noatime</source>
        <translation>CANN 自身读取会刷新这些访问时间（保留了 %1 个算子组）：请按 CANN 的本意清理，或以 noatime 挂载缓存所在的文件系统</translation>
    </message>
    <message>
        <source>Free space: %1 (%2)</source>
        <translation>剩余空间：%1（%2）</translation>
    </message>
    <message>
        <source>Free space: %1</source>
        <translation>剩余空间：%1</translation>
    </message>
    <message>
        <source>No scan yet: press Scan to measure the cache.</source>
        <translation>尚未扫描：点击“扫描缓存”测量缓存占用。</translation>
    </message>
    <message>
        <source>partial: the scan was stopped</source>
        <translation>不完整：扫描已停止</translation>
    </message>
    <message>
        <source>limit</source>
        <translation>上限</translation>
    </message>
    <message>
        <source>keep</source>
        <translation>保留</translation>
    </message>
    <message>
        <source>yours</source>
        <translation>您的</translation>
    </message>
</context>
<context>
    <name>CachePage</name>
    <message>
        <source>Operator compile cache</source>
        <translation>算子编译缓存</translation>
    </message>
    <message>
        <source>Where compiled operators are kept, how much space they may use, and what CANN would delete next.</source>
        <translation>编译好的算子存放在哪里、最多可占用多少空间，以及 CANN 下次会删除哪些内容。</translation>
    </message>
    <message>
        <source>MindSpore graph compile cache — not CANN&apos;s operator cache</source>
        <translation>MindSpore 图编译缓存——不是 CANN 的算子编译缓存</translation>
    </message>
    <message>
        <source>MindSpore&apos;s own cache of compiled graphs (MS_COMPILER_CACHE_ENABLE, MS_COMPILER_CACHE_PATH). op_cache.ini, the size limit, the gauge and CANN&apos;s cleanup above do not apply to it.</source>
        <translation>MindSpore 自己的已编译图缓存（MS_COMPILER_CACHE_ENABLE、MS_COMPILER_CACHE_PATH）。上方的 op_cache.ini、空间上限、用量仪表和 CANN 的清理均不适用于它。</translation>
    </message>
</context>
<context>
    <name>ConfigWizard</name>
    <message>
        <source>CANN Config Assistant</source>
        <translation>CANN 配置助手</translation>
    </message>
    <message>
        <source>Language of the window, the documentation and the exports</source>
        <translation>界面、文档和导出内容的语言</translation>
    </message>
    <message>
        <source>Language</source>
        <translation>语言</translation>
    </message>
    <message>
        <source>Not npu-smi output</source>
        <translation>不是 npu-smi 输出</translation>
    </message>
    <message>
        <source>&lt;pasted npu-smi output&gt;</source>
        <translation>&lt;粘贴的 npu-smi 输出&gt;</translation>
    </message>
    <message>
        <source>Open npu-smi output</source>
        <translation>打开 npu-smi 输出</translation>
    </message>
    <message>
        <source>Text files (*.txt *.log);;All files (*)</source>
        <translation>文本文件 (*.txt *.log);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Cannot read the file</source>
        <translation>无法读取文件</translation>
    </message>
    <message>
        <source>Open a file to start from</source>
        <translation>打开作为起点的文件</translation>
    </message>
    <message>
        <source>Settings files (op_cache.ini *.ini *.sh *.env *.py *.json);;All files (*)</source>
        <translation>配置文件 (op_cache.ini *.ini *.sh *.env *.py *.json);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Cannot use this file</source>
        <translation>无法使用该文件</translation>
    </message>
    <message>
        <source>Open support bundles (several: compare the nodes)</source>
        <translation>打开支持信息包（选择多个：比较各节点）</translation>
    </message>
    <message>
        <source>Support bundles (*.json);;All files (*)</source>
        <translation>支持信息包 (*.json);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Reading %1 …</source>
        <translation>正在读取 %1 …</translation>
    </message>
    <message>
        <source>Reading %1 support bundles …</source>
        <translation>正在读取 %1 个支持信息包 …</translation>
    </message>
    <message>
        <source>Not opened: %1</source>
        <translation>未打开：%1</translation>
    </message>
    <message>
        <source>No report</source>
        <translation>无法生成报告</translation>
    </message>
    <message>
        <source>Save profile</source>
        <translation>保存配置档案</translation>
    </message>
    <message>
        <source>Profiles (*.json)</source>
        <translation>配置档案 (*.json)</translation>
    </message>
    <message>
        <source>Not saved</source>
        <translation>未保存</translation>
    </message>
    <message>
        <source>Save each to keep it, or discard them.</source>
        <translation>请逐项保存以保留它们，或全部放弃。</translation>
    </message>
</context>
<context>
    <name>DevicePage</name>
    <message>
        <source>Device and framework</source>
        <translation>设备与框架</translation>
    </message>
    <message>
        <source>Which Ascend device the settings are for, and where they will be used.</source>
        <translation>这些设置用于哪款昇腾设备，以及将在哪里使用。</translation>
    </message>
    <message>
        <source>De&amp;tect again</source>
        <translation>重新检测(&amp;T)</translation>
    </message>
    <message>
        <source>&amp;Device:</source>
        <translation>设备(&amp;D)：</translation>
    </message>
    <message>
        <source>&amp;Paste npu-smi output…</source>
        <translation>粘贴 npu-smi 输出(&amp;P)…</translation>
    </message>
    <message>
        <source>Open npu-smi &amp;file…</source>
        <translation>打开 npu-smi 输出文件(&amp;F)…</translation>
    </message>
    <message>
        <source>&amp;Used with:</source>
        <translation>使用场景(&amp;U)：</translation>
    </message>
    <message>
        <source>Start from existing files</source>
        <translation>从已有文件开始</translation>
    </message>
    <message>
        <source>Open an op_cache.ini, an env file (export NAME=value), a training script or a saved profile: its settings become the starting choices.</source>
        <translation>打开 op_cache.ini、环境变量文件（export NAME=value）、训练脚本或已保存的配置档案：其中的设置将作为初始选择。</translation>
    </message>
    <message>
        <source>&amp;Open file…</source>
        <translation>打开文件(&amp;O)…</translation>
    </message>
    <message>
        <source>&amp;Recent</source>
        <translation>最近打开(&amp;R)</translation>
    </message>
    <message>
        <source>Open &amp;support bundle…</source>
        <translation>打开支持信息包(&amp;S)…</translation>
    </message>
    <message>
        <source>A file written by &apos;cann-config collect&apos; on a customer&apos;s host: see their device, settings and cache as CANN sees them</source>
        <translation>在客户主机上由 &apos;cann-config collect&apos; 生成的文件：按 CANN 的视角查看其设备、设置和缓存</translation>
    </message>
    <message>
        <source>Support bundle</source>
        <translation>支持信息包</translation>
    </message>
    <message>
        <source>&amp;Apply suggested fixes</source>
        <translation>应用建议的修正(&amp;A)</translation>
    </message>
    <message>
        <source>Replace the choices with the customer&apos;s values and every fix suggested below; the export then carries them</source>
        <translation>用客户的取值和下方建议的全部修正替换当前选择；导出内容随之包含这些修正</translation>
    </message>
    <message>
        <source>Drop t&amp;hem</source>
        <translation>移除这些选择(&amp;H)</translation>
    </message>
    <message>
        <source>Remove these choices: each option goes back to its default</source>
        <translation>移除这些选择：各选项恢复为默认值</translation>
    </message>
    <message>
        <source>As detected on this computer</source>
        <translation>按本机检测结果</translation>
    </message>
    <message>
        <source>Any %1 device</source>
        <translation>%1（任意型号）</translation>
    </message>
    <message>
        <source>%1 cannot take these choices, and the export would refuse them: %2</source>
        <translation>%1 无法使用以下选择，导出时会拒绝它们：%2</translation>
    </message>
    <message>
        <source>%1 — Estimator (NPURunConfig)</source>
        <translation>%1 — Estimator（NPURunConfig）</translation>
    </message>
    <message>
        <source>%1 — sess.run (session config)</source>
        <translation>%1 — sess.run（session 配置）</translation>
    </message>
    <message>
        <source>&lt;b&gt;Support bundle:&lt;/b&gt; %1 — the customer&apos;s host as it was collected; this computer&apos;s device, environment and cache are not used.</source>
        <translation>&lt;b&gt;支持信息包：&lt;/b&gt;%1 — 收集时的客户主机；不使用本机的设备、环境变量和缓存。</translation>
    </message>
    <message>
        <source>The bundle names no device: choose the customer&apos;s device below.</source>
        <translation>信息包中没有设备信息：请在下方选择客户的设备。</translation>
    </message>
    <message>
        <source>&lt;b&gt;Settings for:&lt;/b&gt; %1</source>
        <translation>&lt;b&gt;设置用于：&lt;/b&gt;%1</translation>
    </message>
    <message>
        <source>Detecting the device on this computer (npu-smi, with a time limit)…</source>
        <translation>正在检测本机设备（npu-smi，有时间限制）…</translation>
    </message>
    <message>
        <source>&lt;b&gt;Detected:&lt;/b&gt; %1</source>
        <translation>&lt;b&gt;检测到：&lt;/b&gt;%1</translation>
    </message>
    <message>
        <source>&lt;b&gt;No Ascend device detected on this computer.&lt;/b&gt; Choose the device below or paste npu-smi output from the machine the settings are for.</source>
        <translation>&lt;b&gt;本机未检测到昇腾设备。&lt;/b&gt;请在下方选择设备，或粘贴目标机器的 npu-smi 输出。</translation>
    </message>
    <message>
        <source>&lt;b&gt;Detection failed:&lt;/b&gt; %1</source>
        <translation>&lt;b&gt;检测失败：&lt;/b&gt;%1</translation>
    </message>
    <message>
        <source>No device chosen: every option is shown as available. Choose the device below.</source>
        <translation>未选择设备：所有选项均显示为可用。请在下方选择设备。</translation>
    </message>
    <message>
        <source>CANN toolkit %1</source>
        <translation>CANN Toolkit %1</translation>
    </message>
    <message>
        <source>driver %1</source>
        <translation>驱动 %1</translation>
    </message>
    <message>
        <source>, </source>
        <comment>list separator</comment>
        <translation>，</translation>
    </message>
    <message>
        <source>How: %1</source>
        <translation>检测方式：%1</translation>
    </message>
    <message>
        <source>Read %1</source>
        <translation>已读取 %1</translation>
    </message>
    <message>
        <source>Read %1: no setting taken from it</source>
        <translation>已读取 %1：未从中采用任何设置</translation>
    </message>
    <message>
        <source>Read %1, took:</source>
        <translation>已读取 %1，采用了：</translation>
    </message>
    <message>
        <source>(line %1)</source>
        <translation>（第 %1 行）</translation>
    </message>
    <message>
        <source>&lt;b&gt;File:&lt;/b&gt; %1</source>
        <translation>&lt;b&gt;文件：&lt;/b&gt;%1</translation>
    </message>
    <message>
        <source>Collected %1 by cann-config %2</source>
        <translation>收集于 %1，cann-config %2</translation>
    </message>
    <message>
        <source>No findings: CANN uses this configuration as the customer meant it.</source>
        <translation>没有发现问题：CANN 按客户的本意使用这些配置。</translation>
    </message>
    <message>
        <source>Changes the choices: %1</source>
        <translation>将修改这些选择：%1</translation>
    </message>
    <message>
        <source>The choices hold every suggested fix.</source>
        <translation>当前选择已包含全部建议的修正。</translation>
    </message>
    <message>
        <source>The device decides which options are available: an option the device does not support is greyed out with the reason next to it.</source>
        <translation>设备决定了哪些选项可用：设备不支持的选项会置灰，并在旁边说明原因。</translation>
    </message>
    <message>
        <source>Detection runs npu-smi with a time limit. To prepare settings for another machine, choose its SoC or series, or paste its npu-smi output.</source>
        <translation>检测会在限定时间内运行 npu-smi。要为另一台机器准备设置，请选择它的 SoC 或产品系列，或粘贴它的 npu-smi 输出。</translation>
    </message>
    <message>
        <source>&apos;Used with&apos; decides which options apply and which export formats are offered.</source>
        <translation>“使用场景”决定适用哪些选项，以及提供哪些导出格式。</translation>
    </message>
    <message>
        <source>A support bundle (cann-config collect on the customer&apos;s host) shows that host: its device, its settings as CANN resolves them, its cache, and the findings with their fixes. The choices start as the customer&apos;s values; &apos;Apply suggested fixes&apos; changes them, and the Export page&apos;s Report button writes the diagnosis for the ticket.</source>
        <translation>支持信息包（在客户主机上执行 cann-config collect 生成）展示该主机：其设备、CANN 解析出的设置、缓存，以及各项发现和修正方法。选择的初始值为客户的取值；“应用建议的修正”会修改它们，“导出”页的“报告”按钮可生成用于工单的诊断报告。</translation>
    </message>
</context>
<context>
    <name>Dialogs</name>
    <message>
        <source>your choices have not been saved or copied yet</source>
        <translation>你的选择尚未保存或复制</translation>
    </message>
    <message>
        <source>the change to %1 has not been saved</source>
        <translation>对 %1 的修改尚未保存</translation>
    </message>
    <message>
        <source>Unsaved: %1.</source>
        <translation>未保存：%1。</translation>
    </message>
    <message>
        <source>; </source>
        <translation>；</translation>
    </message>
    <message>
        <source>Unsaved changes</source>
        <translation>未保存的更改</translation>
    </message>
    <message>
        <source>&amp;Save profile…</source>
        <translation>保存配置档案(&amp;S)…</translation>
    </message>
    <message>
        <source>Save &amp;op_cache.ini…</source>
        <translation>保存 op_cache.ini(&amp;O)…</translation>
    </message>
    <message>
        <source>&amp;Discard</source>
        <translation>放弃(&amp;D)</translation>
    </message>
    <message>
        <source>Clean the cache</source>
        <translation>清理缓存</translation>
    </message>
    <message>
        <source>&amp;Delete</source>
        <translation>删除(&amp;D)</translation>
    </message>
</context>
<context>
    <name>DocPane</name>
    <message>
        <source>(not set)</source>
        <translation>（未设置）</translation>
    </message>
    <message>
        <source>Error</source>
        <translation>错误</translation>
    </message>
    <message>
        <source>Warning</source>
        <translation>警告</translation>
    </message>
    <message>
        <source>Note</source>
        <translation>提示</translation>
    </message>
    <message>
        <source>%1:</source>
        <translation>%1：</translation>
    </message>
    <message>
        <source>TF1 MemoryConfig keyword</source>
        <translation>TF1 MemoryConfig 参数</translation>
    </message>
    <message>
        <source>TF1 NPURunConfig keyword</source>
        <translation>TF1 NPURunConfig 参数</translation>
    </message>
    <message>
        <source>TF1 session parameter_map</source>
        <translation>TF1 session 的 parameter_map</translation>
    </message>
    <message>
        <source>TF2 npu.global_options()</source>
        <translation>TF2 npu.global_options()</translation>
    </message>
    <message>
        <source>GE option</source>
        <translation>GE 参数</translation>
    </message>
    <message>
        <source>ATC flag</source>
        <translation>ATC 参数</translation>
    </message>
    <message>
        <source>AscendCL option</source>
        <translation>AscendCL 参数</translation>
    </message>
    <message>
        <source>other frameworks</source>
        <translation>其他框架</translation>
    </message>
    <message>
        <source>Environment variable (%1)</source>
        <translation>环境变量（%1）</translation>
    </message>
    <message>
        <source>op_cache.ini key</source>
        <translation>op_cache.ini 配置项</translation>
    </message>
    <message>
        <source>PYTORCH_NPU_ALLOC_CONF key (torch_npu)</source>
        <translation>PYTORCH_NPU_ALLOC_CONF 中的键（torch_npu）</translation>
    </message>
    <message>
        <source>Legacy environment variable (do not combine)</source>
        <translation>历史环境变量（不要同时设置）</translation>
    </message>
    <message>
        <source>Undocumented</source>
        <translation>未公开文档</translation>
    </message>
    <message>
        <source>Advanced</source>
        <translation>高级</translation>
    </message>
    <message>
        <source>Not available:</source>
        <translation>不可用：</translation>
    </message>
    <message>
        <source>Values</source>
        <translation>取值</translation>
    </message>
    <message>
        <source>default</source>
        <translation>默认</translation>
    </message>
    <message>
        <source>chosen</source>
        <translation>已选</translation>
    </message>
    <message>
        <source>, </source>
        <comment>list separator</comment>
        <translation>，</translation>
    </message>
    <message>
        <source>Needs: %1</source>
        <translation>版本要求：%1</translation>
    </message>
    <message>
        <source>; </source>
        <comment>separator of device series</comment>
        <translation>；</translation>
    </message>
    <message>
        <source>Default: %1</source>
        <translation>默认值：%1</translation>
    </message>
    <message>
        <source>for %1: %2</source>
        <translation>%1 中为 %2</translation>
    </message>
    <message>
        <source>Unit: %1</source>
        <translation>单位：%1</translation>
    </message>
    <message>
        <source>Range: %1</source>
        <translation>取值范围：%1</translation>
    </message>
    <message>
        <source>Devices:</source>
        <translation>设备：</translation>
    </message>
    <message>
        <source>every Ascend device</source>
        <translation>所有昇腾设备</translation>
    </message>
    <message>
        <source>Supported only on:</source>
        <translation>仅支持：</translation>
    </message>
    <message>
        <source>Rules</source>
        <translation>规则</translation>
    </message>
    <message>
        <source>Where it is set</source>
        <translation>设置位置</translation>
    </message>
    <message>
        <source>Sources: %1</source>
        <translation>来源：%1</translation>
    </message>
</context>
<context>
    <name>ExportPage</name>
    <message>
        <source>TensorFlow 1.x Estimator — NPURunConfig (Python)</source>
        <translation>TensorFlow 1.x Estimator — NPURunConfig（Python）</translation>
    </message>
    <message>
        <source>TensorFlow 1.x sess.run — session config (Python)</source>
        <translation>TensorFlow 1.x sess.run — session 配置（Python）</translation>
    </message>
    <message>
        <source>TensorFlow 2.x — npu.global_options() (Python)</source>
        <translation>TensorFlow 2.x — npu.global_options()（Python）</translation>
    </message>
    <message>
        <source>GE options — dict for ge.Session / MindSpore (Python)</source>
        <translation>GE 参数 — 用于 ge.Session / MindSpore 的 dict（Python）</translation>
    </message>
    <message>
        <source>PyTorch — top of the training script, torch_npu (Python)</source>
        <translation>PyTorch — 训练脚本开头，torch_npu（Python）</translation>
    </message>
    <message>
        <source>Environment variables — bash / sh</source>
        <translation>环境变量 — bash / sh</translation>
    </message>
    <message>
        <source>Environment variables — fish</source>
        <translation>环境变量 — fish</translation>
    </message>
    <message>
        <source>op_cache.ini</source>
        <translation>op_cache.ini</translation>
    </message>
    <message>
        <source>Profile (JSON, for cann-config)</source>
        <translation>配置档案（JSON，供 cann-config 使用）</translation>
    </message>
    <message>
        <source>Copied to the clipboard.</source>
        <translation>已复制到剪贴板。</translation>
    </message>
    <message>
        <source>Save the export</source>
        <translation>保存导出内容</translation>
    </message>
    <message>
        <source>All files (*)</source>
        <translation>所有文件 (*)</translation>
    </message>
    <message>
        <source>Not saved: %1</source>
        <translation>未保存：%1</translation>
    </message>
    <message>
        <source>Ansible playbook — apply the settings on many hosts</source>
        <translation>Ansible 剧本 — 在多台主机上应用这些设置</translation>
    </message>
    <message>
        <source>Ansible playbook — collect support bundles from many hosts</source>
        <translation>Ansible 剧本 — 从多台主机收集支持信息包</translation>
    </message>
    <message>
        <source>Kubernetes ConfigMap — environment variables</source>
        <translation>Kubernetes ConfigMap — 环境变量</translation>
    </message>
    <message>
        <source>vLLM-Ascend — server launch script (bash)</source>
        <translation>vLLM-Ascend 服务的 bash 启动脚本</translation>
    </message>
    <message>
        <source>MindSpore — top of the training script (Python)</source>
        <translation>MindSpore 训练脚本开头的 Python 代码</translation>
    </message>
    <message>
        <source>a choice cannot be used here (see the findings)</source>
        <translation>有取值在此无法使用（见提示）</translation>
    </message>
    <message>
        <source>Not saved</source>
        <translation>未保存</translation>
    </message>
    <message>
        <source>Saved to %1</source>
        <translation>已保存到 %1</translation>
    </message>
    <message>
        <source>Export</source>
        <translation>导出</translation>
    </message>
    <message>
        <source>Your choices as a snippet or a file. The preview follows every change.</source>
        <translation>以代码片段或文件的形式导出您的选择。预览随每次修改即时更新。</translation>
    </message>
    <message>
        <source>Fo&amp;rmat:</source>
        <translation>格式(&amp;R)：</translation>
    </message>
    <message>
        <source>&amp;Only my changes</source>
        <translation>仅导出我的修改(&amp;O)</translation>
    </message>
    <message>
        <source>Leave out every option still at its default</source>
        <translation>省略所有仍为默认值的选项</translation>
    </message>
    <message>
        <source>&amp;Copy</source>
        <translation>复制(&amp;C)</translation>
    </message>
    <message>
        <source>&amp;Save…</source>
        <translation>保存(&amp;S)…</translation>
    </message>
    <message>
        <source>Save &amp;profile…</source>
        <translation>保存配置档案(&amp;P)…</translation>
    </message>
    <message>
        <source>R&amp;eport…</source>
        <translation>报告(&amp;E)…</translation>
    </message>
    <message>
        <source>The diagnosis as a report to paste into a ticket (Markdown or HTML): of the support bundle when one is open, else of these choices</source>
        <translation>生成可粘贴到工单中的诊断报告（Markdown 或 HTML）：打开了支持信息包时针对该信息包，否则针对当前选择</translation>
    </message>
    <message>
        <source>The formats offered are those that %1 reads.</source>
        <translation>这里提供的是 %1 能读取的格式。</translation>
    </message>
    <message>
        <source>Every export explains each setting in a comment; a choice the device or framework cannot take is left out with a comment saying why, and listed below the preview.</source>
        <translation>每种导出都会用注释说明每项设置；设备或框架无法接受的选择会被省略，并用注释说明原因，同时列在预览下方。</translation>
    </message>
    <message>
        <source>&apos;Only my changes&apos; leaves out every option still at its default.</source>
        <translation>“仅导出我的修改”会省略所有仍为默认值的选项。</translation>
    </message>
</context>
<context>
    <name>ExportPreview</name>
    <message>
        <source>No findings: these choices are fine for this device and framework.</source>
        <translation>没有发现问题：这些选择适用于该设备和框架。</translation>
    </message>
</context>
<context>
    <name>FleetDialog</name>
    <message>
        <source>Compare nodes</source>
        <translation>比较节点</translation>
    </message>
    <message>
        <source>One column per support bundle. Rows marked ≠ differ between the nodes (value or source); each setting reads value (source).</source>
        <translation>每个支持信息包一列。标有 ≠ 的行在各节点间不一致（取值或来源）；每个设置显示为 取值（来源）。</translation>
    </message>
    <message>
        <source>Show the rows that differ only by each node&apos;s home directory</source>
        <translation>显示仅因各节点主目录不同而不一致的行</translation>
    </message>
</context>
<context>
    <name>IniPanel</name>
    <message>
        <source>&lt;b&gt;op_cache.ini:&lt;/b&gt; reading %1 …</source>
        <translation>&lt;b&gt;op_cache.ini：&lt;/b&gt;正在读取 %1 …</translation>
    </message>
    <message>
        <source>&lt;b&gt;op_cache.ini cannot be used:&lt;/b&gt; %1</source>
        <translation>&lt;b&gt;op_cache.ini 无法使用：&lt;/b&gt;%1</translation>
    </message>
    <message>
        <source>&lt;b&gt;op_cache.ini:&lt;/b&gt; %1 does not exist yet; saving creates it from the documented template.</source>
        <translation>&lt;b&gt;op_cache.ini：&lt;/b&gt;%1 尚不存在；保存时将按文档中的模板创建。</translation>
    </message>
    <message>
        <source>&lt;b&gt;op_cache.ini:&lt;/b&gt; %1 — not read by CANN (it reads %2): saving it changes nothing CANN does.</source>
        <translation>&lt;b&gt;op_cache.ini：&lt;/b&gt;%1 — CANN 不读取它（CANN 读取的是 %2）：保存它不会改变 CANN 的行为。</translation>
    </message>
    <message>
        <source>&lt;b&gt;op_cache.ini:&lt;/b&gt; %1</source>
        <translation>&lt;b&gt;op_cache.ini：&lt;/b&gt;%1</translation>
    </message>
    <message>
        <source>CANN does not use this file as it is: %1</source>
        <translation>CANN 不会按现状使用该文件：%1</translation>
    </message>
    <message>
        <source>Saving now writes a file CANN ignores: it needs adk_version and ops_version of the CANN that will read it. Enter them below, or export the sizes as environment variables on the Export page instead.</source>
        <translation>现在保存会写出一个 CANN 会忽略的文件：它需要将读取它的 CANN 的 adk_version 和 ops_version。请在下方填写，或改为在“导出”页将大小设置导出为环境变量。</translation>
    </message>
    <message>
        <source>The file is on the customer&apos;s host: export the fixed op_cache.ini on the Export page and send it.</source>
        <translation>该文件在客户主机上：请在“导出”页导出修正后的 op_cache.ini 并发给客户。</translation>
    </message>
    <message>
        <source>&lt;b&gt;op_cache.ini on the customer&apos;s host:&lt;/b&gt; %1 (from the support bundle)</source>
        <translation>&lt;b&gt;客户主机上的 op_cache.ini：&lt;/b&gt;%1（来自支持信息包）</translation>
    </message>
    <message>
        <source>&lt;b&gt;op_cache.ini on the customer&apos;s host&lt;/b&gt; could not be read there: %1</source>
        <translation>&lt;b&gt;客户主机上的 op_cache.ini&lt;/b&gt; 在该主机上无法读取：%1</translation>
    </message>
    <message>
        <source>&lt;b&gt;op_cache.ini on the customer&apos;s host:&lt;/b&gt; %1 does not exist there.</source>
        <translation>&lt;b&gt;客户主机上的 op_cache.ini：&lt;/b&gt;%1 在该主机上不存在。</translation>
    </message>
    <message>
        <source>It cannot be saved from here: export the fixed op_cache.ini on the Export page and send it to the customer.</source>
        <translation>无法在此保存：请在“导出”页导出修正后的 op_cache.ini 并发给客户。</translation>
    </message>
    <message>
        <source>%1 is still being read; try again in a moment.</source>
        <translation>%1 仍在读取中，请稍后再试。</translation>
    </message>
    <message>
        <source>Nothing to save: %1 already holds these values; it was not touched.</source>
        <translation>无需保存：%1 中已是这些取值，文件未做改动。</translation>
    </message>
    <message>
        <source>Not saved: the review was cancelled.</source>
        <translation>未保存：已取消修改确认。</translation>
    </message>
    <message>
        <source>op_cache.ini changed on disk</source>
        <translation>op_cache.ini 已在磁盘上被修改</translation>
    </message>
    <message>
        <source>Not saved</source>
        <translation>未保存</translation>
    </message>
    <message>
        <source>Saved %1 (previous version kept as %2).</source>
        <translation>已保存 %1（原文件已备份为 %2）。</translation>
    </message>
    <message>
        <source>Saved %1.</source>
        <translation>已保存 %1。</translation>
    </message>
    <message>
        <source>Not saved: %1</source>
        <translation>未保存：%1</translation>
    </message>
    <message>
        <source>op_cache.ini</source>
        <translation>op_cache.ini</translation>
    </message>
    <message>
        <source>The CANN that will read this file is not installed here. Copy its versions from the machine that runs the job: adk_version is the Version line of &lt;CANN toolkit&gt;/compiler/version.info, ops_version that of $ASCEND_OPP_PATH/version.info. Or leave op_cache.ini alone and set ASCEND_MAX_OP_CACHE_SIZE and ASCEND_REMAIN_CACHE_SIZE_RATIO (Export page, env file).</source>
        <translation>将读取此文件的 CANN 没有安装在本机。请从运行作业的机器上抄录其版本：adk_version 为 &lt;CANN toolkit&gt;/compiler/version.info 中的 Version 行，ops_version 为 $ASCEND_OPP_PATH/version.info 中的 Version 行。也可以不改 op_cache.ini，改为设置 ASCEND_MAX_OP_CACHE_SIZE 和 ASCEND_REMAIN_CACHE_SIZE_RATIO（“导出”页，环境变量文件）。</translation>
    </message>
    <message>
        <source>adk_version:</source>
        <translation>adk_version：</translation>
    </message>
    <message>
        <source>ops_version:</source>
        <translation>ops_version：</translation>
    </message>
    <message>
        <source>&amp;Review and save op_cache.ini…</source>
        <translation>检查并保存 op_cache.ini(&amp;R)…</translation>
    </message>
    <message>
        <source>Re&amp;load</source>
        <translation>重新读取(&amp;L)</translation>
    </message>
</context>
<context>
    <name>LimitsPanel</name>
    <message>
        <source>from op_cache.ini</source>
        <translation>来自 op_cache.ini</translation>
    </message>
    <message>
        <source>from the environment</source>
        <translation>来自环境变量</translation>
    </message>
    <message>
        <source>CANN&apos;s default</source>
        <translation>CANN 默认值</translation>
    </message>
    <message>
        <source>from the profile</source>
        <translation>来自配置档案</translation>
    </message>
    <message>
        <source>from the script</source>
        <translation>来自脚本</translation>
    </message>
    <message>
        <source>from $%1</source>
        <translation>来自 $%1</translation>
    </message>
    <message>
        <source>CANN uses now: %1 — %2</source>
        <translation>CANN 当前使用：%1 — %2</translation>
    </message>
    <message>
        <source>Go back to the value of op_cache.ini, or the one CANN uses now</source>
        <translation>恢复为 op_cache.ini 中的值，或 CANN 当前使用的值</translation>
    </message>
</context>
<context>
    <name>MemoryPage</name>
    <message>
        <source>Memory policies</source>
        <translation>内存策略</translation>
    </message>
    <message>
        <source>TensorFlow Adapter MemoryConfig and the matching GE options. Click an option&apos;s title or ? for its full documentation.</source>
        <translation>TensorFlow Adapter 的 MemoryConfig 及对应的 GE 参数。点击选项标题或 ? 查看完整文档。</translation>
    </message>
    <message>
        <source>MindSpore&apos;s memory settings: runtime.set_memory (or the deprecated set_context), ascend_config and MS_ALLOC_CONF, checked as MindSpore 2.10 checks them. Click an option&apos;s title or ? for its full documentation.</source>
        <translation>MindSpore 的内存设置：runtime.set_memory（或已废弃的 set_context）、ascend_config 和 MS_ALLOC_CONF，按 MindSpore 2.10 的规则校验。单击选项标题或 ? 查看完整文档。</translation>
    </message>
    <message>
        <source>The GE options below (static memory policy, ...) reach CANN through ascend_config&apos;s ge_options and apply only on MindSpore&apos;s GE path (jit_level O2).</source>
        <translation>下方的 GE 参数（静态内存分配策略等）通过 ascend_config 的 ge_options 传给 CANN，只在 MindSpore 的 GE 路径（jit_level O2）上生效。</translation>
    </message>
    <message>
        <source>torch_npu&apos;s caching allocator in a vLLM-Ascend server: these settings become PYTORCH_NPU_ALLOC_CONF, which vLLM-Ascend rewrites at start-up. Click an option&apos;s title or ? for its full documentation.</source>
        <translation>vLLM-Ascend 服务中的 torch_npu 缓存内存分配器：这些设置将写入 PYTORCH_NPU_ALLOC_CONF，vLLM-Ascend 启动时会改写该变量。单击选项标题或 ? 查看完整文档。</translation>
    </message>
    <message>
        <source>vLLM-Ascend adds expandable_segments:True unless the variable names expandable_segments, max_split_size_mb or garbage_collection_threshold; the export page shows what torch_npu will read.</source>
        <translation>除非变量中含有 expandable_segments、max_split_size_mb 或 garbage_collection_threshold，vLLM-Ascend 会追加 expandable_segments:True；导出页显示 torch_npu 实际读取的值。</translation>
    </message>
    <message>
        <source>torch_npu&apos;s caching allocator: these settings become PYTORCH_NPU_ALLOC_CONF. Click an option&apos;s title or ? for its full documentation.</source>
        <translation>torch_npu 缓存内存分配器：这些设置将写入 PYTORCH_NPU_ALLOC_CONF。单击选项标题或 ? 查看完整文档。</translation>
    </message>
    <message>
        <source>The TensorFlow Adapter&apos;s MemoryConfig options further down do not apply to PyTorch; each says why.</source>
        <translation>下方的 TensorFlow Adapter MemoryConfig 选项不适用于 PyTorch，每个选项都注明了原因。</translation>
    </message>
    <message>
        <source>torch_npu&apos;s allocator options (PYTORCH_NPU_ALLOC_CONF) are hidden: only PyTorch reads them. Choose &quot;Used with: PyTorch&quot; on the device page to see them.</source>
        <translation>已隐藏 torch_npu 内存分配器选项（PYTORCH_NPU_ALLOC_CONF）：只有 PyTorch 读取它们。在设备页将“使用场景”选择为 PyTorch 即可看到。</translation>
    </message>
    <message>
        <source>torch_npu allocator (PYTORCH_NPU_ALLOC_CONF)</source>
        <translation>torch_npu 内存分配器（PYTORCH_NPU_ALLOC_CONF）</translation>
    </message>
    <message>
        <source>Graphs run &amp;concurrently</source>
        <translation>多张图并发执行(&amp;C)</translation>
    </message>
    <message>
        <source>Tick if several graphs of the session execute at the same time</source>
        <translation>同一 session 中有多张图同时执行时请勾选</translation>
    </message>
    <message>
        <source>Show &amp;advanced options (undocumented by Huawei)</source>
        <translation>显示高级选项（华为未公开文档）(&amp;A)</translation>
    </message>
    <message>
        <source>Paste an out-of-memory &amp;error...</source>
        <translation>粘贴内存不足报错(&amp;E)...</translation>
    </message>
    <message>
        <source>What holds the NPU memory, and which setting helps</source>
        <translation>NPU 内存被谁占用，以及哪项设置有帮助</translation>
    </message>
    <message>
        <source>The server runs in sleep mode (--enable-sleep-mode)</source>
        <translation>服务使用 sleep 模式（--enable-sleep-mode）</translation>
    </message>
    <message>
        <source>vLLM-Ascend then leaves PYTORCH_NPU_ALLOC_CONF alone, and its memory pool refuses expandable_segments:True</source>
        <translation>此时 vLLM-Ascend 不改写 PYTORCH_NPU_ALLOC_CONF，其内存池不接受 expandable_segments:True</translation>
    </message>
    <message>
        <source>RL mode is on (additional_config rl_config.enabled)</source>
        <translation>已开启 RL 模式（additional_config rl_config.enabled）</translation>
    </message>
    <message>
        <source>vLLM-Ascend then removes the expandable_segments items before its start-up rewrite</source>
        <translation>此时 vLLM-Ascend 会在启动改写之前移除 expandable_segments 项</translation>
    </message>
</context>
<context>
    <name>NpuSmiDialog</name>
    <message>
        <source>Paste npu-smi output</source>
        <translation>粘贴 npu-smi 输出</translation>
    </message>
    <message>
        <source>Output of &lt;code&gt;npu-smi info&lt;/code&gt;:</source>
        <translation>&lt;code&gt;npu-smi info&lt;/code&gt; 的输出：</translation>
    </message>
    <message>
        <source>Optional, for Atlas A3 and Ascend 950: output of &lt;code&gt;npu-smi info -t board -i ID -c CHIP&lt;/code&gt;:</source>
        <translation>可选，用于 Atlas A3 和 Ascend 950：&lt;code&gt;npu-smi info -t board -i ID -c CHIP&lt;/code&gt; 的输出：</translation>
    </message>
    <message>
        <source>Paste the output above: what it describes is shown here.</source>
        <translation>请在上方粘贴输出：其描述的设备将显示在此处。</translation>
    </message>
    <message>
        <source>&lt;pasted npu-smi output&gt;</source>
        <translation>&lt;粘贴的 npu-smi 输出&gt;</translation>
    </message>
    <message>
        <source>Not recognised: %1</source>
        <translation>无法识别：%1</translation>
    </message>
    <message>
        <source>Recognised: %1</source>
        <translation>已识别：%1</translation>
    </message>
    <message>
        <source>No SoC recognised.</source>
        <translation>未识别出 SoC。</translation>
    </message>
</context>
<context>
    <name>OptionEditor</name>
    <message>
        <source>(not set)</source>
        <translation>（未设置）</translation>
    </message>
    <message>
        <source>Type a size: 2048, 2 GB, 2048 MB or 1.5 GiB (1 MB = 1024 × 1024 bytes, as CANN counts); it is read when you leave the box</source>
        <translation>输入大小：2048、2 GB、2048 MB 或 1.5 GiB（1 MB = 1024 × 1024 字节，与 CANN 的计法一致）；离开输入框时读取</translation>
    </message>
    <message>
        <source>Not taken: %1</source>
        <translation>未采用：%1</translation>
    </message>
    <message>
        <source>Set</source>
        <translation>设置</translation>
    </message>
    <message>
        <source>Bro&amp;wse…</source>
        <translation>浏览(&amp;W)…</translation>
    </message>
</context>
<context>
    <name>OptionRow</name>
    <message>
        <source>undocumented</source>
        <translation>未公开</translation>
    </message>
    <message>
        <source>(undocumented)</source>
        <translation>（未公开文档）</translation>
    </message>
    <message>
        <source>Show the documentation of this option</source>
        <translation>显示此选项的文档</translation>
    </message>
    <message>
        <source>Documentation: %1</source>
        <translation>文档：%1</translation>
    </message>
    <message>
        <source>modified</source>
        <translation>已修改</translation>
    </message>
    <message>
        <source>Reset</source>
        <translation>重置</translation>
    </message>
    <message>
        <source>Go back to the value this option started with</source>
        <translation>恢复为此选项的初始值</translation>
    </message>
    <message>
        <source>Reset %1</source>
        <translation>重置 %1</translation>
    </message>
    <message>
        <source>Reset to the default</source>
        <translation>恢复默认值</translation>
    </message>
    <message>
        <source>This device cannot take the value: go back to the default, which the export can carry</source>
        <translation>该设备不支持此取值：恢复为默认值，导出时即可使用</translation>
    </message>
    <message>
        <source>Not available here.</source>
        <translation>此处不可用。</translation>
    </message>
    <message>
        <source>Not available: %1</source>
        <translation>不可用：%1</translation>
    </message>
</context>
<context>
    <name>ReportDialog</name>
    <message>
        <source>Diagnosis report</source>
        <translation>诊断报告</translation>
    </message>
    <message>
        <source>Save as &amp;Markdown…</source>
        <translation>另存为 Markdown(&amp;M)…</translation>
    </message>
    <message>
        <source>Save as &amp;HTML…</source>
        <translation>另存为 HTML(&amp;H)…</translation>
    </message>
    <message>
        <source>Save the report as Markdown</source>
        <translation>将报告保存为 Markdown</translation>
    </message>
    <message>
        <source>Save the report as HTML</source>
        <translation>将报告保存为 HTML</translation>
    </message>
    <message>
        <source>Markdown (*.md)</source>
        <translation>Markdown 文件 (*.md)</translation>
    </message>
    <message>
        <source>HTML (*.html)</source>
        <translation>HTML 文件 (*.html)</translation>
    </message>
    <message>
        <source>Not saved: %1</source>
        <translation>未保存：%1</translation>
    </message>
    <message>
        <source>Not saved</source>
        <translation>未保存</translation>
    </message>
    <message>
        <source>Saved to %1</source>
        <translation>已保存到 %1</translation>
    </message>
</context>
<context>
    <name>ReviewDialog</name>
    <message>
        <source>Review the change to op_cache.ini</source>
        <translation>确认对 op_cache.ini 的修改</translation>
    </message>
    <message>
        <source>A new file will be created: %1</source>
        <translation>将新建文件：%1</translation>
    </message>
    <message>
        <source>%1 will be changed as shown (a copy of the current file is kept as %2).</source>
        <translation>%1 将按下方所示修改（当前文件会备份为 %2）。</translation>
    </message>
    <message>
        <source>%1 (now)</source>
        <translation>%1（当前）</translation>
    </message>
    <message>
        <source>%1 (after saving)</source>
        <translation>%1（保存后）</translation>
    </message>
    <message>
        <source>&amp;Save</source>
        <translation>保存(&amp;S)</translation>
    </message>
</context>
<context>
    <name>TriageDialog</name>
    <message>
        <source>Paste an error</source>
        <translation>粘贴报错</translation>
    </message>
    <message>
        <source>Paste the NPU out-of-memory error, or the end of the job&apos;s log:</source>
        <translation>粘贴 NPU 内存不足报错，或任务日志的末尾：</translation>
    </message>
    <message>
        <source>&amp;Apply the suggested settings</source>
        <translation>应用建议的设置(&amp;A)</translation>
    </message>
    <message>
        <source>Paste the text above: what it says is shown here.</source>
        <translation>请在上方粘贴文本：其含义会显示在这里。</translation>
    </message>
    <message>
        <source>&lt;pasted text&gt;</source>
        <translation>&lt;粘贴的文本&gt;</translation>
    </message>
    <message>
        <source>Apply sets the suggested allocator settings in your choices.</source>
        <translation>“应用”会把建议的分配器设置写入您的选择。</translation>
    </message>
    <message>
        <source>No allocator setting of the wizard helps with this error; the text above says what to look at instead.</source>
        <translation>向导中没有能解决此错误的分配器设置；上方文本说明了应当检查什么。</translation>
    </message>
    <message>
        <source>No NPU memory error found in this text.</source>
        <translation>此文本中未发现 NPU 内存错误。</translation>
    </message>
    <message>
        <source>Applied: the memory page and the export now use the suggested settings.</source>
        <translation>已应用：内存页和导出现在使用建议的设置。</translation>
    </message>
</context>
<context>
    <name>UsagePanel</name>
    <message>
        <source>The cache holds no SoC directory yet.</source>
        <translation>缓存中还没有 SoC 目录。</translation>
    </message>
    <message>
        <source>The bundle holds no measurement of the cache.</source>
        <translation>信息包中没有缓存的测量结果。</translation>
    </message>
    <message>
        <source>The cache could not be measured on the customer&apos;s host: %1</source>
        <translation>无法在客户主机上测量缓存：%1</translation>
    </message>
    <message>
        <source>%1 does not exist on the customer&apos;s host: nothing is cached there yet.</source>
        <translation>客户主机上不存在 %1：那里还没有任何缓存。</translation>
    </message>
    <message>
        <source>Not scanned here: the cache is on the customer&apos;s host.</source>
        <translation>未在本机扫描：缓存在客户主机上。</translation>
    </message>
    <message>
        <source>Measured there by cann-config collect: %1 files, %2 (on disk %3).</source>
        <translation>由 cann-config collect 在该主机上测量：%1 个文件，%2（占用磁盘 %3）。</translation>
    </message>
    <message>
        <source>What the next start deletes was predicted there with the customer&apos;s limits (%1 MB, %2 %).</source>
        <translation>下次启动会删除的内容是在该主机上按客户的上限（%1 MB，%2%）预测的。</translation>
    </message>
    <message>
        <source>%1 does not exist: nothing is cached there yet.</source>
        <translation>%1 不存在：其中尚无缓存。</translation>
    </message>
    <message>
        <source>Scanning %1 …</source>
        <translation>正在扫描 %1 …</translation>
    </message>
    <message>
        <source>Listing what CANN means to delete …</source>
        <translation>正在列出 CANN 本意要删除的内容 …</translation>
    </message>
    <message>
        <source>CANN&apos;s delete lock %1 is held by another process (a compiler start cleaning this cache): nothing was deleted.</source>
        <translation>CANN 的删除锁 %1 被另一个进程持有（正在清理该缓存的编译器启动）：未删除任何文件。</translation>
    </message>
    <message>
        <source>CANN means to delete nothing: each SoC directory is under its limit, or what is over it was used in the last 30 minutes.</source>
        <translation>CANN 本意不删除任何内容：每个 SoC 目录都低于上限，或超出部分在最近 30 分钟内用过。</translation>
    </message>
    <message>
        <source>Delete %1 kernel groups (%2), oldest used first, as CANN&apos;s cleaner means to? They are deleted under CANN&apos;s own lock; CANN compiles them again when needed.</source>
        <translation>按 CANN 清理的本意，从最早使用的开始删除 %1 个算子组（%2）？删除在 CANN 自己的锁下进行；需要时 CANN 会重新编译它们。</translation>
    </message>
    <message>
        <source>Deleting what CANN means to delete …</source>
        <translation>正在删除 CANN 本意要删除的内容 …</translation>
    </message>
    <message>
        <source>Nothing was deleted.</source>
        <translation>未删除任何文件。</translation>
    </message>
    <message>
        <source>Deleted %1 kernel groups, %2 freed.</source>
        <translation>已删除 %1 个算子组，释放 %2。</translation>
    </message>
    <message>
        <source>%1 files could not be deleted.</source>
        <translation>有 %1 个文件无法删除。</translation>
    </message>
    <message>
        <source>The clean did not run: %1</source>
        <translation>清理未能运行：%1</translation>
    </message>
    <message>
        <source>Scanning: %1 files, %2, %3 s</source>
        <translation>正在扫描：%1 个文件，%2，%3 秒</translation>
    </message>
    <message>
        <source>%1 files, %2 (on disk %3), %4 s</source>
        <translation>%1 个文件，%2（占用磁盘 %3），%4 秒</translation>
    </message>
    <message>
        <source>Stopped: %1</source>
        <translation>已停止：%1</translation>
    </message>
    <message>
        <source>%1 entries could not be read</source>
        <translation>%1 个条目无法读取</translation>
    </message>
    <message>
        <source>Cl&amp;ean as CANN means to…</source>
        <translation>按 CANN 本意清理(&amp;E)…</translation>
    </message>
    <message>
        <source>CANN&apos;s own cleanup often deletes nothing (its read of each kernel refreshes the access time it checks): list what it means to delete, then delete it under CANN&apos;s lock.</source>
        <translation>CANN 自己的清理常常什么都不删（它读取每个算子时会刷新其检查的访问时间）：先列出它本意要删除的内容，再在 CANN 的锁下删除。</translation>
    </message>
    <message>
        <source>&amp;Stop</source>
        <translation>停止(&amp;S)</translation>
    </message>
    <message>
        <source>S&amp;can the cache</source>
        <translation>扫描缓存(&amp;C)</translation>
    </message>
    <message>
        <source>The cache is on the customer&apos;s host: the bundle&apos;s measurement is shown.</source>
        <translation>缓存在客户主机上：显示的是信息包中的测量结果。</translation>
    </message>
    <message>
        <source>Cache usage per SoC directory</source>
        <translation>各 SoC 目录的缓存占用</translation>
    </message>
</context>
</TS>
