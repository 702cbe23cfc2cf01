import { useState } from 'react';

const CATEGORIES = ['food', 'transport', 'housing', 'entertainment'];

export default function AddExpense() {
  const [description, setDescription] = useState('');
  const [amount, setAmount] = useState('');
  const [category, setCategory] = useState(CATEGORIES[0]);
  const [message, setMessage] = useState('');

  const submit = async (event) => {
    event.preventDefault();
    try {
      const response = await fetch('/api/expenses', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ description, amount: parseFloat(amount), category }),
      });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      setMessage('Expense added');
    } catch (err) {
      setMessage('Failed to add expense');
    }
  };

  return (
    <form onSubmit={submit}>
      <input placeholder="Description" value={description} onChange={(e) => setDescription(e.target.value)} />
      <input
        type="number"
        step="0.01"
        placeholder="Amount"
        value={amount}
        onChange={(e) => setAmount(e.target.value)}
      />
      <select data-testid="expense-category" value={category} onChange={(e) => setCategory(e.target.value)}>
        {CATEGORIES.map((c) => (
          <option key={c} value={c}>{c}</option>
        ))}
      </select>
      <button type="submit">Add expense</button>
      {message && <p>{message}</p>}
    </form>
  );
}
