<?php
// PHPMailer (Debian's libphp-phpmailer) over SMTP, as a PHP app sends.
require '/usr/share/php/libphp-phpmailer/autoload.php';
use PHPMailer\PHPMailer\PHPMailer;

$spec = json_decode(file_get_contents($argv[1]), true);
preg_match('/^(.*?)\s*<([^>]+)>$/', $spec['from'], $from);
foreach ($spec['messages'] as $m) {
    $mail = new PHPMailer(true);
    $mail->isSMTP();
    $mail->Host = $spec['host'];
    $mail->Port = $spec['port'];
    $mail->SMTPAuth = true;
    $mail->Username = $spec['user'];
    $mail->Password = $spec['key'];
    $mail->SMTPSecure = $spec['mode'] === 'tls' ? PHPMailer::ENCRYPTION_SMTPS : PHPMailer::ENCRYPTION_STARTTLS;
    $mail->SMTPOptions = ['ssl' => ['cafile' => $spec['ca'], 'verify_peer' => true]];
    $mail->CharSet = PHPMailer::CHARSET_UTF8;
    $mail->setFrom($from[2], $from[1]);
    foreach ($m['to'] as $to) $mail->addAddress($to);
    foreach ($m['cc'] as $cc) $mail->addCC($cc);
    foreach ($m['bcc'] as $bcc) $mail->addBCC($bcc);
    $mail->Subject = $m['subject'];
    $mail->Body = $m['text'];
    if ($m['attachment']) $mail->addAttachment($m['attachment']['path'], $m['attachment']['filename'], PHPMailer::ENCODING_BASE64, $m['attachment']['contentType']);
    $mail->send();
}
echo "sent\n";
