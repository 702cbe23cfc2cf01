import { useState } from 'react';

export default function ExportTransactions() {
  const [status, setStatus] = useState('');

  const exportCsv = async () => {
    try {
      const response = await fetch('/api/transactions/export?format=csv');
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      const text = await response.text();
      const rows = text.split('\n').filter((line) => line.trim() !== '');
      setStatus(`Export ready: ${rows.length - 1} transactions`);
    } catch (err) {
      setStatus('Export failed');
    }
  };

  return (
    <div>
      <button onClick={exportCsv}>Export CSV</button>
      {status && <p>{status}</p>}
    </div>
  );
}
