import { useState } from 'react';

export default function TransferFunds() {
  const [to, setTo] = useState('');
  const [amount, setAmount] = useState('');
  const [result, setResult] = useState('');
  const [error, setError] = useState('');

  const transfer = async () => {
    setResult('');
    setError('');
    try {
      const response = await fetch('/api/transfers', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ to, amount: Number(amount) }),
      });
      const data = await response.json().catch(() => ({}));
      if (!response.ok) {
        setError(data.error || 'Transfer failed');
        return;
      }
      setResult(`Transfer complete (ref ${data.reference})`);
    } catch (err) {
      setError('Transfer failed');
    }
  };

  return (
    <div>
      <input placeholder="Recipient account" value={to} onChange={(e) => setTo(e.target.value)} />
      <input type="number" placeholder="Amount" value={amount} onChange={(e) => setAmount(e.target.value)} />
      <button onClick={transfer}>Transfer</button>
      {result && <p>{result}</p>}
      {error && <p role="alert">{error}</p>}
    </div>
  );
}
